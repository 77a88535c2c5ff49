// Text from a page, made plain and cut to the editor's limits.

// A Map, not an object: "&constructor;" must not find Object.prototype's properties.
const ENTITIES = new Map(
  Object.entries({
    amp: "&",
    lt: "<",
    gt: ">",
    quot: '"',
    apos: "'",
    nbsp: " ",
    ndash: "–",
    mdash: "—",
    hellip: "…",
    lsquo: "‘",
    rsquo: "’",
    ldquo: "“",
    rdquo: "”",
    deg: "°",
    frac12: "½",
    frac14: "¼",
    frac34: "¾",
    times: "×",
    eacute: "é",
    egrave: "è",
    ntilde: "ñ",
    uuml: "ü",
    ouml: "ö",
    auml: "ä",
    ccedil: "ç",
  }),
);

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z][a-z0-9]*);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES.get(name.toLowerCase()) ?? whole;
  });
}

/**
 * Every tag ("<" up to the next ">") replaced by a space, in one pass. A "<" with no ">" after it
 * is plain text, and so is everything after it: once no ">" is left the scan stops, rather than
 * reading the rest of the text again for every "<" (what /<[^>]*>/g does, quadratic).
 */
function stripTags(text: string): string {
  const parts: string[] = [];
  let at = 0;
  for (;;) {
    const open = text.indexOf("<", at);
    if (open < 0) break;
    const close = text.indexOf(">", open + 1);
    if (close < 0) break;
    parts.push(text.slice(at, open), " ");
    at = close + 1;
  }
  parts.push(text.slice(at));
  return parts.join("");
}

/** Plain text: tags dropped, entities decoded, control characters and runs of spaces folded. */
export function cleanText(value: unknown): string {
  if (typeof value !== "string" && typeof value !== "number") return "";
  const text = String(value);
  // Blank is common (a page may list a million empty strings): skip the passes below.
  if (text.trim() === "") return "";
  // Runs of spaces and control characters fold to one space; a lone space is left where it is
  // (replacing each by itself took 0.6 s on a page of a million).
  return decodeEntities(stripTags(text))
    .replace(/(?! )[\u0000-\u001f\u007f\u00a0\s]+| [\u0000-\u001f\u007f\u00a0\s]+/g, " ")
    .replace(/ ([.,;:!?)])/g, "$1")
    .trim();
}

/** Cuts to `max` UTF-16 units (the editor's unit), at a word boundary when one is near, with "…". */
export function cut(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  let head = text.slice(0, end);
  const space = head.lastIndexOf(" ");
  if (space > 0 && space >= end - 15) head = head.slice(0, space);
  return { text: `${head.trimEnd()}…`, cut: true };
}

// A page of 2 MB can list hundreds of thousands of ingredients, steps or keywords. Reading stops
// once there are more than the editor keeps (one more tells that some were dropped), so the work
// does not grow with the page beyond that.

/** The cleaned, non-blank texts of `values` in order, at most `limit + 1` of them. */
export function cleanTextsUpTo(values: readonly string[], limit: number): string[] {
  const texts: string[] = [];
  for (const value of values) {
    if (texts.length > limit) break;
    const text = cleanText(value);
    if (text !== "") texts.push(text);
  }
  return texts;
}

/**
 * Instruction text that may be one blob with HTML or line breaks: one step per line or paragraph,
 * added to `steps` until it holds more than `limit`.
 */
export function splitInstructionText(text: string, steps: string[], limit: number): void {
  const lines = text.replace(/<\s*(?:br|\/p|\/li|\/div|\/h[1-6])\s*\/?>/gi, "\n").split(/\r?\n/);
  for (const line of lines) {
    if (steps.length > limit) return;
    const step = cleanText(line).replace(/^(?:step\s*)?\d{1,3}\s*[.):]\s+/i, "");
    if (step !== "") steps.push(step);
  }
}

/** An ISO 8601 duration ("PT1H20M") in whole minutes, or null when the text is not one. */
export function isoMinutes(text: string | undefined): number | null {
  if (!text) return null;
  const match = /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(
    text.trim(),
  );
  if (!match || match.slice(1).every((part) => part === undefined)) return null;
  const [weeks, days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number, number];
  return Math.round(weeks * 7 * 24 * 60 + days * 24 * 60 + hours * 60 + minutes + seconds / 60);
}

/** 80 → "1 hr 20 min", 45 → "45 min", 120 → "2 hr" (the recipe page reads these back as ISO 8601). */
export function durationText(totalMinutes: number): string {
  const hours = Math.floor(totalMinutes / 60);
  const minutes = totalMinutes % 60;
  if (hours === 0) return `${minutes} min`;
  return minutes === 0 ? `${hours} hr` : `${hours} hr ${minutes} min`;
}
