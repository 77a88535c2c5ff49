// What a loader tells a page about the photos it shows: the rules naming a photo's copies
// (app/lib/photos.ts), imported through this server module so that a page whose loader alone needs
// them does not carry them in its script, and each stored photo's inline placeholder.
export { imageSrcSet, PHOTO_SIZES } from "~/lib/photos";
export { PLACEHOLDERS_PER_PAGE, placeholderFor, placeholdersOf, withPlaceholders } from "~/server/media/placeholders.server";
