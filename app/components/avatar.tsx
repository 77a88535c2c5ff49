import { DEFAULT_PROFILE_IMAGE } from "~/lib/paths";

/** A round profile picture with fixed dimensions (no layout shift); decorative next to a name. */
export function Avatar({ src, size = 40, alt = "" }: { src: string | null | undefined; size?: number; alt?: string }) {
  return (
    <img
      className="avatar"
      src={src || DEFAULT_PROFILE_IMAGE}
      alt={alt}
      width={size}
      height={size}
      loading="lazy"
      decoding="async"
    />
  );
}
