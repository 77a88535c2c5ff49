// The photo-address rules a loader uses to name a photo's copies (app/lib/photos.ts), imported
// through this server module so that a page whose loader alone needs them does not carry them
// in its script.
export { imageSrcSet, PHOTO_SIZES } from "~/lib/photos";
