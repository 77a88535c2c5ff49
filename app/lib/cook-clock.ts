// The timers' clock in cook mode (docs/rules.md#cook-mode): what the browser needs to show a
// timer, apart from app/lib/cook-mode.ts, whose readers (durations, ingredients) run on the server
// only and would bring the quantity reader into the cook page's script.

const MINUTE = 60;
const HOUR = 60 * MINUTE;

/** What is left of a timer, as a clock: "14:59", "0:05" under a minute is "00:05"; "1:02:03" from an hour. */
export function formatClock(milliseconds: number): string {
  const total = Math.max(0, Math.ceil(milliseconds / 1000));
  const hours = Math.floor(total / HOUR);
  const minutes = Math.floor((total % HOUR) / MINUTE);
  const seconds = total % MINUTE;
  const two = (n: number) => String(n).padStart(2, "0");
  return hours > 0 ? `${hours}:${two(minutes)}:${two(seconds)}` : `${two(minutes)}:${two(seconds)}`;
}
