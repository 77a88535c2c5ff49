import { useHydrated } from "~/lib/hooks";
import { exactTime, relativeTime } from "~/lib/relative-time";

/**
 * "2 h" on the page, the exact date on hover and to screen readers. The server says it against
 * its clock; once the page runs, the browser's clock has the last word (a cached page may be old).
 */
export function RelativeTime({ iso }: { iso: string }) {
  // Hydration keeps the server's words (suppressHydrationWarning); the render that follows it
  // (useHydrated turns) says them again against the browser's clock.
  useHydrated();
  const exact = exactTime(iso);
  return (
    <time dateTime={iso} title={exact}>
      <span aria-hidden="true" suppressHydrationWarning>
        {relativeTime(iso, Date.now())}
      </span>
      <span className="visually-hidden">{exact}</span>
    </time>
  );
}
