// How long ago something happened, as a feed says it ("just now", "5 min", "2 h", "3 d", "2 w",
// then the date), and the exact date for hover and screen readers (docs/rules.md#dates). A date
// without a time (comments store the day only) counts in days: "today", "yesterday", "3 d".
// Both in UTC, so the server and the browser write the same words.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

// Each toLocaleDateString call with options builds a new Intl.DateTimeFormat, the slowest part of a
// page listing many dates (a recipe's comments: tens of milliseconds a page). One formatter of each
// kind, made when first needed, writes the same words.
const FORMATS = {
  dayMonth: ["en-US", { month: "short", day: "numeric" }],
  dayMonthYear: ["en-US", { month: "short", day: "numeric", year: "numeric" }],
  hourMinute: ["en-GB", { hour: "2-digit", minute: "2-digit" }],
} as const satisfies Record<string, readonly [string, Intl.DateTimeFormatOptions]>;
const formatters: Partial<Record<keyof typeof FORMATS, Intl.DateTimeFormat>> = {};
function formatter(kind: keyof typeof FORMATS): Intl.DateTimeFormat {
  const [locale, options] = FORMATS[kind];
  return (formatters[kind] ??= new Intl.DateTimeFormat(locale, { ...options, timeZone: "UTC" }));
}

// A page's dates repeat (a recipe's comments keep only their day): each is formatted once, and
// the words kept for the next time it is asked for (a few thousand at most).
const written = new Map<string, string>();
function format(kind: keyof typeof FORMATS, at: number): string {
  const key = `${kind} ${at}`;
  let text = written.get(key);
  if (text === undefined) {
    text = formatter(kind).format(at);
    if (written.size >= 4096) written.clear();
    written.set(key, text);
  }
  return text;
}

function calendar(at: number, now: number): string {
  const sameYear = new Date(at).getUTCFullYear() === new Date(now).getUTCFullYear();
  return format(sameYear ? "dayMonth" : "dayMonthYear", at);
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
  const date = format("dayMonthYear", at);
  if (DATE_ONLY.test(iso)) return date;
  const time = format("hourMinute", at);
  return `${date}, ${time} UTC`;
}
