import { useEffect, useState } from "react";

import { exactTime, relativeTime } from "~/lib/relative-time";

/**
 * "2 h" on the page, the exact date on hover and to screen readers. The server says it against
 * its clock; once the page runs, the browser's clock has the last word (a cached page may be old).
 */
export function RelativeTime({ iso }: { iso: string }) {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => setNow(Date.now()), []);
  const exact = exactTime(iso);
  return (
    <time dateTime={iso} title={exact}>
      <span aria-hidden="true" suppressHydrationWarning>
        {relativeTime(iso, now ?? Date.now())}
      </span>
      <span className="visually-hidden">{exact}</span>
    </time>
  );
}
