import { FIRST_PHOTO, imageSrcSet, PHOTO_SIZES } from "~/lib/photos";

/** Placeholders of the photos a page shows, by photo address (app/server/media/placeholders.server.ts). */
export type Placeholders = Readonly<Record<string, string>>;

/**
 * A photo in its slot (docs/rules.md#images): every stored copy in `srcset` with the slot's drawn
 * width, AVIF first for browsers that read it (a `<picture>`, which lays out as its `<img>`), over
 * the photo's own tiny blurred placeholder (written inline, so the slot shows the photo's colours
 * before a byte of it arrives). The frame is the slot's box; the photo fills it.
 * `first` is the page's largest paint (fetched before anything else); `eager` photos are on a
 * phone's first screen; the rest load when scrolled near.
 */
export function Photo({
  src,
  placeholder,
  slot,
  alt,
  width,
  height,
  className,
  eager = false,
  first = false,
  name = alt,
}: {
  src: string;
  placeholder?: string | null;
  slot: keyof typeof PHOTO_SIZES;
  alt: string;
  width: number;
  height: number;
  className?: string;
  eager?: boolean;
  first?: boolean;
  /** What the photo shows (its recipe's name), for the tile of a photo that cannot load; the alt text by default. */
  name?: string;
}) {
  const loading = eager || first ? "eager" : "lazy";
  const avifSrcSet = imageSrcSet(src, "avif");
  return (
    <span className="photo-frame">
      {placeholder ? <img className="photo-frame__blur" src={placeholder} alt="" aria-hidden="true" width={width} height={height} loading={loading} /> : null}
      <picture>
        {avifSrcSet ? <source type="image/avif" srcSet={avifSrcSet} sizes={PHOTO_SIZES[slot]} /> : null}
        <img
          className={className}
          src={src}
          srcSet={imageSrcSet(src)}
          sizes={PHOTO_SIZES[slot]}
          alt={alt}
          width={width}
          height={height}
          loading={loading}
          decoding="async"
          // Shown on a tinted tile if the photo cannot load (global.css, `img[data-initial]`).
          data-initial={name.trim().charAt(0).toUpperCase() || undefined}
          {...(first ? FIRST_PHOTO : {})}
        />
      </picture>
    </span>
  );
}
