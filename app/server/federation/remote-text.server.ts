// What other servers send is HTML we did not write. It is never shown as HTML: every tag is taken
// out here, paragraphs and line breaks become new lines, and the page shows the text as text
// (React escapes it). Only http(s) links are kept, as addresses to link to.

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : "";
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}

/** The longest text kept of one remote post or reply. */
export const REMOTE_TEXT_MAX = 5000;

/** Remote HTML as plain text: no tags, no scripts or styles, entities decoded, at most REMOTE_TEXT_MAX characters. */
export function remoteHtmlToText(html: string | null | undefined): string {
  if (!html) return "";
  const text = decodeEntities(
    html
      .slice(0, REMOTE_TEXT_MAX * 4)
      .replace(/<(script|style|template|iframe|object)\b[\s\S]*?(<\/\1\s*>|$)/gi, "")
      .replace(/<!--[\s\S]*?(-->|$)/g, "")
      .replace(/<br\s*\/?>/gi, "\n")
      .replace(/<\/(p|div|li|h[1-6]|blockquote|pre|tr)\s*>/gi, "\n")
      // A numbered list keeps its numbers; any other list item is a bullet.
      .replace(/<ol\b[^>]*>([\s\S]*?)(<\/ol\s*>|$)/gi, (_whole, items: string) => {
        let n = 0;
        return items.replace(/<li\b[^>]*>/gi, () => `${(n += 1)}. `);
      })
      .replace(/<li\b[^>]*>/gi, "• ")
      .replace(/<[^>]*>?/g, ""),
  );
  return text
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, "")
    .replace(/[ \t]+/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()
    .slice(0, REMOTE_TEXT_MAX);
}

/** An address from another server we may link to or show: http(s) only, else null. */
export function safeRemoteUrl(address: URL | string | null | undefined): string | null {
  if (!address) return null;
  try {
    const url = new URL(String(address));
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}
