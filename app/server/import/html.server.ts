// A small, forgiving HTML reader for imports: it walks a fetched page once, from start to end, and
// reports elements opening and closing (always properly nested) and the text between them. The
// microdata reader and the fallback guess (microdata.server.ts, fallback.server.ts) are built on it.
//
// The page is up to 2 MB that someone else wrote, so, as in json-ld.server.ts, every character is
// looked at a bounded number of times: tags are read with indexOf and one forward pass, an end tag
// with no open element of its name is dropped at once (a count per name, not a search of the open
// elements), and nesting deeper than MAX_DEPTH is flattened.

export interface HtmlElement {
  /** Lower-case tag name. */
  name: string;
  /** Lower-case attribute names; the first of a repeated name wins, as in a browser. */
  attributes: Map<string, string>;
}

export interface HtmlHandler {
  open(element: HtmlElement): void;
  close(element: HtmlElement): void;
  /** Text as written (entities not decoded). `cleanText` (text.server.ts) decodes it later. */
  text(raw: string): void;
}

/** Elements with no content and no end tag. */
const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr", "param", "keygen"]);

/** Elements whose content is text up to their own end tag, never markup. */
const RAW_TEXT = new Set(["script", "style", "xmp", "iframe", "noembed", "noframes", "textarea", "title", "plaintext"]);
/** Of those, the ones whose text is kept (a page title); the others are code or hidden. */
const KEPT_RAW_TEXT = new Set(["title", "textarea"]);

/** Block elements that end an open `<p>`, as a browser does. */
const CLOSES_P = new Set([
  "address", "article", "aside", "blockquote", "div", "dl", "fieldset", "footer", "form", "h1", "h2", "h3", "h4", "h5",
  "h6", "header", "hr", "main", "nav", "ol", "p", "pre", "section", "table", "ul",
]);

const LISTS = new Set(["ul", "ol", "menu"]);

/** Elements open at once, at most: deeper ones are read as if their parent held their content. */
export const MAX_DEPTH = 256;
/** Attributes kept per tag: real tags have a handful; the rest are read past. */
const MAX_ATTRIBUTES = 64;

/** HTML's white space: tab, line feed, form feed, carriage return, space. */
export function isHtmlSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d;
}

function isAsciiLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** Whether `text` holds `word` (lowercase ASCII) at `at`, in any letter case. */
export function hasWordAt(text: string, at: number, word: string): boolean {
  if (at + word.length > text.length) return false;
  for (let i = 0; i < word.length; i += 1) {
    let code = text.charCodeAt(at + i);
    if (code >= 0x41 && code <= 0x5a) code += 0x20;
    if (code !== word.charCodeAt(i)) return false;
  }
  return true;
}

/** A tag name from `from`: up to a space, "/" or ">". */
function readName(html: string, from: number): number {
  let i = from;
  while (i < html.length) {
    const code = html.charCodeAt(i);
    if (isHtmlSpace(code) || code === 0x2f /* / */ || code === 0x3e /* > */) break;
    i += 1;
  }
  return i;
}

/**
 * A tag's attributes from `from` (just after its name) to its closing ">", as a browser reads
 * them: a ">" inside a quoted value does not end the tag. Null when the page ends first: an
 * unclosed tag or quote swallows the rest of the page.
 */
export function readAttributes(html: string, from: number): { attributes: Map<string, string>; selfClosing: boolean; end: number } | null {
  const attributes = new Map<string, string>();
  let i = from;
  let selfClosing = false;
  while (i < html.length) {
    const code = html.charCodeAt(i);
    if (isHtmlSpace(code)) {
      i += 1;
      continue;
    }
    if (code === 0x2f /* / */) {
      selfClosing = html.charCodeAt(i + 1) === 0x3e;
      i += 1;
      continue;
    }
    if (code === 0x3e /* > */) return { attributes, selfClosing, end: i + 1 };
    selfClosing = false;
    // A name runs to a space, "/", ">" or "=" (a "=" in first place belongs to the name).
    const nameStart = i;
    i += 1;
    while (i < html.length) {
      const c = html.charCodeAt(i);
      if (isHtmlSpace(c) || c === 0x2f || c === 0x3e || c === 0x3d) break;
      i += 1;
    }
    const name = html.slice(nameStart, i).toLowerCase();
    let j = i;
    while (j < html.length && isHtmlSpace(html.charCodeAt(j))) j += 1;
    let value = "";
    if (html.charCodeAt(j) === 0x3d /* = */) {
      j += 1;
      while (j < html.length && isHtmlSpace(html.charCodeAt(j))) j += 1;
      const quote = html[j];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, j + 1);
        if (close < 0) return null;
        value = html.slice(j + 1, close);
        i = close + 1;
      } else {
        const valueStart = j;
        while (j < html.length && !isHtmlSpace(html.charCodeAt(j)) && html.charCodeAt(j) !== 0x3e) j += 1;
        value = html.slice(valueStart, j);
        i = j;
      }
    }
    if (attributes.size < MAX_ATTRIBUTES && !attributes.has(name)) attributes.set(name, value);
  }
  return null;
}

/** Where the raw text of a `<name>` element ends: its "</name" start and the end of that tag. */
export function findRawTextEnd(html: string, from: number, name: string): { start: number; end: number } | null {
  let at = from;
  for (;;) {
    const start = html.indexOf("</", at);
    if (start < 0) return null;
    const i = start + 2;
    if (hasWordAt(html, i, name)) {
      const after = html.charCodeAt(i + name.length);
      if (isHtmlSpace(after) || after === 0x2f || after === 0x3e) {
        const close = html.indexOf(">", i + name.length);
        return { start, end: close < 0 ? html.length : close + 1 };
      }
    }
    at = i;
  }
}

/** Reads `html` once, telling `handler` what opens, closes and reads between. */
export function scanHtml(html: string, handler: HtmlHandler): void {
  const stack: HtmlElement[] = [];
  const openCount = new Map<string, number>();
  /** Open lists and list items, innermost last: tells whether a new `<li>` ends the one before. */
  const listStack: HtmlElement[] = [];

  const push = (element: HtmlElement) => {
    stack.push(element);
    openCount.set(element.name, (openCount.get(element.name) ?? 0) + 1);
    if (element.name === "li" || LISTS.has(element.name)) listStack.push(element);
    handler.open(element);
  };
  const pop = () => {
    const element = stack.pop()!;
    openCount.set(element.name, openCount.get(element.name)! - 1);
    if (listStack[listStack.length - 1] === element) listStack.pop();
    handler.close(element);
    return element;
  };
  const closeThrough = (element: HtmlElement) => {
    while (stack.length > 0 && pop() !== element);
  };
  const foreign = () => (openCount.get("svg") ?? 0) + (openCount.get("math") ?? 0) > 0;

  const startTag = (name: string, attributes: Map<string, string>, selfClosing: boolean) => {
    // What a new element ends, as in a browser (the common cases, each decided in constant time).
    const top = stack[stack.length - 1];
    if (name === "li") {
      const lastList = listStack[listStack.length - 1];
      if (lastList?.name === "li") closeThrough(lastList);
    } else if (top && top.name === "p" && CLOSES_P.has(name)) pop();
    else if (top && (name === "dt" || name === "dd") && (top.name === "dt" || top.name === "dd")) pop();
    else if (top && name === "option" && top.name === "option") pop();
    else if (top && (name === "td" || name === "th") && (top.name === "td" || top.name === "th")) pop();
    else if (top && name === "tr" && (top.name === "tr" || top.name === "td" || top.name === "th")) {
      if (top.name !== "tr") pop();
      if (stack[stack.length - 1]?.name === "tr") pop();
    }
    const element: HtmlElement = { name, attributes };
    if (VOID.has(name) || (selfClosing && foreign()) || stack.length >= MAX_DEPTH) {
      handler.open(element);
      handler.close(element);
      return;
    }
    push(element);
  };

  const endTag = (name: string) => {
    if (name === "br") {
      startTag("br", new Map(), false); // "</br>" is read as "<br>"
      return;
    }
    if ((openCount.get(name) ?? 0) === 0) return;
    while (stack.length > 0 && pop().name !== name);
  };

  let at = 0;
  while (at < html.length) {
    const open = html.indexOf("<", at);
    if (open < 0) {
      handler.text(html.slice(at));
      break;
    }
    if (open > at) handler.text(html.slice(at, open));
    const next = html.charCodeAt(open + 1);
    if (isAsciiLetter(next)) {
      const nameEnd = readName(html, open + 1);
      const name = html.slice(open + 1, nameEnd).toLowerCase();
      const tag = readAttributes(html, nameEnd);
      if (!tag) break;
      at = tag.end;
      startTag(name, tag.attributes, tag.selfClosing);
      if (RAW_TEXT.has(name) && !(tag.selfClosing && foreign())) {
        const close = findRawTextEnd(html, at, name);
        const textEnd = close ? close.start : html.length;
        if (KEPT_RAW_TEXT.has(name) && textEnd > at) handler.text(html.slice(at, textEnd));
        at = close ? close.end : html.length;
        endTag(name);
      }
    } else if (next === 0x2f /* / */ && isAsciiLetter(html.charCodeAt(open + 2))) {
      const nameEnd = readName(html, open + 2);
      const close = html.indexOf(">", nameEnd);
      if (close < 0) break;
      at = close + 1;
      endTag(html.slice(open + 2, nameEnd).toLowerCase());
    } else if (next === 0x21 /* ! */ && html.startsWith("--", open + 2)) {
      // A comment runs to "-->", or to the end of the page when it never closes.
      const close = html.indexOf("-->", open + 4);
      at = close < 0 ? html.length : close + 3;
    } else if (next === 0x21 || next === 0x3f /* ? */ || next === 0x2f) {
      // <!DOCTYPE …>, <![CDATA[ … ]]>, <?xml …?>, "</ …>": skipped to the next ">".
      const close = html.indexOf(">", open + 2);
      at = close < 0 ? html.length : close + 1;
    } else {
      handler.text("<"); // a "<" that starts no tag is text
      at = open + 1;
    }
  }
  while (stack.length > 0) pop();
}

/** Elements whose end (or start, for `br`) is a line break in their text. */
export const LINE_BREAKS = new Set(["br", "p", "li", "div", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "dt", "dd", "section", "article", "blockquote", "pre"]);

/**
 * Text gathered for the elements being read, innermost last. Text goes to the innermost one only;
 * when it closes, its text joins its parent's: each character is copied once per level, and each
 * text is cut at `maxLength`, so a deep or long page costs no more than that.
 */
export class TextStack {
  private readonly frames: { parts: string[]; length: number }[] = [];
  constructor(
    private readonly maxLength: number,
    /** Open frames at most; a deeper one is not started (its text goes to the one around it). */
    readonly maxFrames = 64,
  ) {}

  get depth(): number {
    return this.frames.length;
  }

  /** Starts a frame; false (nothing started) when `maxFrames` are open. */
  begin(): boolean {
    if (this.frames.length >= this.maxFrames) return false;
    this.frames.push({ parts: [], length: 0 });
    return true;
  }

  add(text: string): void {
    const frame = this.frames[this.frames.length - 1];
    if (!frame || frame.length >= this.maxLength) return;
    // A "<" in text would read as a tag to cleanText: written as the entity it decodes back to.
    const safe = text.length > this.maxLength - frame.length ? text.slice(0, this.maxLength - frame.length) : text;
    const escaped = safe.includes("<") ? safe.replace(/</g, "&lt;") : safe;
    frame.parts.push(escaped);
    frame.length += safe.length;
  }

  /** Ends the innermost frame and gives its text; `passUp` adds it to the frame around it too. */
  end(passUp: boolean): string {
    const frame = this.frames.pop();
    const text = frame ? frame.parts.join("") : "";
    if (passUp && text !== "") {
      const parent = this.frames[this.frames.length - 1];
      if (parent && parent.length < this.maxLength) {
        const room = this.maxLength - parent.length;
        const part = text.length > room ? text.slice(0, room) : text;
        parent.parts.push(part);
        parent.length += part.length;
      }
    }
    return text;
  }
}
