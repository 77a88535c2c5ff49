// How long ago something happened, as a feed says it ("just now", "5 min", "2 h", "3 d", "2 w",
// then the date), and the exact date for hover and screen readers (docs/rules.md#dates). A date
// without a time (comments store the day only) counts in days: "today", "yesterday", "3 d".
// Both in UTC, so the server and the browser write the same words.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

// A toLocaleDateString call with options builds a new Intl.DateTimeFormat each time, the slowest part
// of a page listing many dates (a recipe's comments: tens of milliseconds a page). One formatter of
// each kind (named by its options' keys; each kind has one set of values here), made when first
// needed, writes the same words. Kept small: this module is in the recipe page's script.
const formatters: Record<string, Intl.DateTimeFormat> = {};
const format = (at: number, locale: string, options: Intl.DateTimeFormatOptions) =>
  (formatters[locale + Object.keys(options)] ??= new Intl.DateTimeFormat(locale, { ...options, timeZone: "UTC" })).format(at);

function calendar(at: number, now: number): string {
  const sameYear = new Date(at).getUTCFullYear() === new Date(now).getUTCFullYear();
  return format(at, "en-US", { month: "short", day: "numeric", ...(sameYear ? {} : { year: "numeric" }) });
}

function days(count: number, at: number, now: number): string {
  if (count < 7) return `${count} d`;
  if (count < 35) return `${Math.floor(count / 7)} w`;
  return calendar(at, now);
}

/** `iso` (a date, or a date and time) told relative to `now` (milliseconds); text it cannot read comes back as it is. */
export function relativeTime(iso: string, now: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  if (DATE_ONLY.test(iso)) {
    const count = Math.floor(now / DAY) - Math.floor(at / DAY);
    if (count <= 0) return "today";
    if (count === 1) return "yesterday";
    return days(count, at, now);
  }
  const ago = now - at;
  if (ago < MINUTE) return "just now";
  if (ago < HOUR) return `${Math.floor(ago / MINUTE)} min`;
  if (ago < DAY) return `${Math.floor(ago / HOUR)} h`;
  return days(Math.floor(ago / DAY), at, now);
}

/** The exact date ("May 28, 2025"), with the time in UTC when there is one ("May 28, 2025, 14:05 UTC"). */
export function exactTime(iso: string): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const date = format(at, "en-US", { month: "short", day: "numeric", year: "numeric" });
  if (DATE_ONLY.test(iso)) return date;
  const time = format(at, "en-GB", { hour: "2-digit", minute: "2-digit" });
  return `${date}, ${time} UTC`;
}
