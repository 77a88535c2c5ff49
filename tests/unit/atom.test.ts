import { describe, expect, it } from "vitest";

import { loader } from "~/routes/ReciPals.Users.$uid.recipes[.]atom";
import { xml } from "~/server/document/atom.server";
import { db } from "~/server/db/connection.server";

import { makeRecipeWithPost } from "../support/factories";
import { getRequest, makeUser, routeArgs, signedInCookie } from "../support/app";

// The profile feeds (docs/rules.md#atom-feeds), checked as XML by a small strict parser below (no XML library
// in the project): well-formed, Atom's namespace, the required elements, escaping.

interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_][\w.:-]*/;

function decode(raw: string, at: number): string {
  return raw.replace(/&([^;\s]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(";")) throw new Error(`Bare & at ${at}`);
    const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
    if (ref in named) return named[ref]!;
    const code = /^#x[0-9a-fA-F]+$/.test(ref) ? Number.parseInt(ref.slice(2), 16) : /^#\d+$/.test(ref) ? Number(ref.slice(1)) : NaN;
    if (Number.isNaN(code)) throw new Error(`Unknown entity &${ref}; at ${at}`);
    return String.fromCodePoint(code);
  });
}

/** Parses a whole XML document strictly enough to catch what a feed reader would choke on. */
function parseXml(source: string): XmlElement {
  let i = 0;
  const fail = (message: string): never => {
    throw new Error(`${message} at ${i}: ${JSON.stringify(source.slice(i, i + 40))}`);
  };
  const skipSpace = () => {
    while (i < source.length && /\s/.test(source[i]!)) i += 1;
  };
  const name = () => {
    const match = NAME.exec(source.slice(i));
    if (!match) fail("Expected a name");
    i += match![0].length;
    return match![0];
  };
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(source)) fail("Control character in document");
  if (source.startsWith("<?xml")) {
    const end = source.indexOf("?>");
    if (end < 0) fail("Unclosed XML declaration");
    i = end + 2;
  }
  const element = (): XmlElement => {
    if (source[i] !== "<") fail("Expected <");
    i += 1;
    const node: XmlElement = { name: name(), attrs: {}, children: [], text: "" };
    for (;;) {
      skipSpace();
      if (source.startsWith("/>", i)) {
        i += 2;
        return node;
      }
      if (source[i] === ">") {
        i += 1;
        break;
      }
      const attr = name();
      skipSpace();
      if (source[i] !== "=") fail("Expected =");
      i += 1;
      skipSpace();
      const quote = source[i];
      if (quote !== '"' && quote !== "'") fail("Unquoted attribute");
      const end = source.indexOf(quote!, i + 1);
      if (end < 0) fail("Unclosed attribute");
      const raw = source.slice(i + 1, end);
      if (raw.includes("<")) fail("< in attribute");
      if (attr in node.attrs) fail(`Duplicate attribute ${attr}`);
      node.attrs[attr] = decode(raw, i);
      i = end + 1;
    }
    for (;;) {
      if (i >= source.length) fail(`Unclosed <${node.name}>`);
      if (source.startsWith("</", i)) {
        i += 2;
        const closing = name();
        if (closing !== node.name) fail(`</${closing}> closes <${node.name}>`);
        skipSpace();
        if (source[i] !== ">") fail("Expected >");
        i += 1;
        return node;
      }
      if (source.startsWith("<!--", i)) {
        const end = source.indexOf("-->", i);
        if (end < 0) fail("Unclosed comment");
        i = end + 3;
        continue;
      }
      if (source[i] === "<") {
        node.children.push(element());
        continue;
      }
      const next = source.indexOf("<", i);
      const raw = source.slice(i, next < 0 ? source.length : next);
      if (raw.includes("]]>")) fail("]]> in text");
      node.text += decode(raw, i);
      i += raw.length;
    }
  };
  skipSpace();
  const root = element();
  skipSpace();
  if (i !== source.length) fail("Content after the root element");
  return root;
}

const child = (node: XmlElement, name: string) => node.children.find((c) => c.name === name);
const children = (node: XmlElement, name: string) => node.children.filter((c) => c.name === name);
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

async function feedFor(uid: string, cookie?: string) {
  const response = await loader(routeArgs(getRequest(`/ReciPals/Users/${uid}/recipes.atom`, cookie), { uid }));
  return response;
}

describe("the strict XML reader used here", () => {
  it("refuses what is not well-formed", () => {
    for (const bad of ["<a><b></a>", "<a>x & y</a>", "<a b=1/>", "<a>1 < 2</a>", "<a></a><b/>", '<a b="<"/>', "<a>&nbsp;</a>"]) {
      expect(() => parseXml(bad), bad).toThrow();
    }
    expect(parseXml('<a b="&lt;&amp;">x &gt; y<c/></a>')).toMatchObject({ attrs: { b: "<&" }, text: "x > y", children: [{ name: "c" }] });
  });
});

describe("a user's recipe feed", () => {
  it("is well-formed Atom with one entry per recipe, titled with the recipe's name", async () => {
    const user = await makeUser();
    const tricky = `Mac & Cheese <b>"best"</b> 'ever' \u0001 ☕`;
    await makeRecipeWithPost({ userId: user.id, name: "First dal", description: "Red lentils & rice" });
    await makeRecipeWithPost({ userId: user.id, name: tricky, description: "Cheese < more cheese" });
    const other = await makeUser();
    await makeRecipeWithPost({ userId: other.id, name: "Not theirs" });

    const response = await feedFor(user.id);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("application/atom+xml; charset=utf-8");
    const text = await response.text();
    expect(text.startsWith('<?xml version="1.0" encoding="utf-8"?>')).toBe(true);
    expect(text).toContain("Mac &amp; Cheese &lt;b&gt;");
    const feed = parseXml(text);

    expect(feed.name).toBe("feed");
    expect(feed.attrs.xmlns).toBe("http://www.w3.org/2005/Atom");
    expect(child(feed, "id")?.text).toBe(`http://localhost:4000/ReciPals/Users/${user.id}/recipes.atom`);
    expect(child(feed, "title")?.text).toBe(`${user.username}'s recipes · ReciPals`);
    expect(child(feed, "updated")?.text).toMatch(RFC3339);
    expect(child(child(feed, "author")!, "name")?.text).toBe(user.username);
    const self = children(feed, "link").find((link) => link.attrs.rel === "self");
    expect(self?.attrs.href).toBe(child(feed, "id")?.text);

    const entries = children(feed, "entry");
    expect(entries).toHaveLength(2);
    // Newest first; the name comes back exactly, minus the control character XML cannot hold.
    expect(entries.map((entry) => child(entry, "title")?.text)).toEqual([tricky.replace("\u0001", ""), "First dal"]);
    const ids = new Set<string>();
    for (const entry of entries) {
      const id = child(entry, "id")?.text ?? "";
      expect(id).toMatch(/^http:\/\/localhost:4000\/ReciPals\/Recipes\/[0-9a-f-]{36}$/);
      ids.add(id);
      expect(child(entry, "updated")?.text).toMatch(RFC3339);
      const link = children(entry, "link").find((l) => l.attrs.rel === "alternate");
      expect(link?.attrs.href).toBe(id);
      expect(child(entry, "content")?.attrs.type).toBe("html");
    }
    expect(ids.size).toBe(2);
    expect(child(entries[0]!, "summary")?.text).toBe("Cheese < more cheese");
    expect(child(entries[0]!, "content")?.text).toContain('<img src="http://localhost:4000/images/noodleDish.png"');
  });

  it("is valid and empty for a user without recipes, dated by the account", async () => {
    const user = await makeUser();
    const feed = parseXml(await (await feedFor(user.id)).text());
    expect(children(feed, "entry")).toHaveLength(0);
    const row = await db.selectFrom("users").select("created_at").where("id", "=", user.id).executeTakeFirstOrThrow();
    expect(child(feed, "updated")?.text).toBe(new Date(row.created_at).toISOString());
  });

  it("holds the latest 50 recipes, newest first, and is dated by the newest of them", async () => {
    const user = await makeUser();
    const made: string[] = [];
    for (let i = 0; i < 60; i++) made.push((await makeRecipeWithPost({ userId: user.id, name: `Dish ${i}` })).recipeId);
    await db.updateTable("recipes").set({ created_at: "2020-01-01" }).where("user_created", "=", user.id).execute();
    await db.updateTable("recipes").set({ created_at: "2026-03-04" }).where("id", "=", made[59]!).execute();
    await db.updateTable("recipes").set({ created_at: "2026-05-06" }).where("id", "=", made[2]!).execute(); // too old to be listed
    const feed = parseXml(await (await feedFor(user.id)).text());
    const entries = children(feed, "entry");
    expect(entries).toHaveLength(50);
    expect(entries.map((entry) => child(entry, "title")?.text)).toEqual(Array.from({ length: 50 }, (_, i) => `Dish ${59 - i}`));
    expect(child(feed, "updated")?.text).toBe("2026-03-04T00:00:00Z");
  });

  it("answers 404 for an unknown user, without signing in", async () => {
    const response = await feedFor("no-such-user");
    expect(response.status).toBe(404);
    expect(await response.text()).toBe("User not found.");
  });

  it("escapes markup and drops characters XML forbids", () => {
    expect(xml(`<a href="x">&'</a>\u0000\uD800`)).toBe("&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
  });
});

describe("caching of a feed (docs/rules.md#personal-answers)", () => {
  const PUBLIC = "public, max-age=300";
  const PERSONAL = "private, no-store";

  it("a visitor's feed may be kept by any cache for five minutes; a signed-in reader's by none", async () => {
    const author = await makeUser();
    await makeRecipeWithPost({ userId: author.id, name: "Cached dal" });
    const visitor = await feedFor(author.id);
    expect(visitor.status).toBe(200);
    expect(visitor.headers.get("Cache-Control")).toBe(PUBLIC);

    const reader = await makeUser();
    const signedIn = await feedFor(author.id, await signedInCookie(reader.id));
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get("Cache-Control")).toBe(PERSONAL);
    // Their own feed too.
    expect((await feedFor(author.id, await signedInCookie(author.id))).headers.get("Cache-Control")).toBe(PERSONAL);
  });

  it("a cookie whose session is gone is a visitor's request: the public answer", async () => {
    const author = await makeUser();
    const reader = await makeUser();
    const cookie = await signedInCookie(reader.id);
    await db.deleteFrom("sessions").where("user_id", "=", reader.id).execute();
    const response = await feedFor(author.id, cookie);
    expect(response.status).toBe(200);
    expect(response.headers.get("Cache-Control")).toBe(PUBLIC);
  });

  it("what differs for a signed-in reader (blocks, an ADMIN reading a suspended author) is never cached publicly", async () => {
    const author = await makeUser();
    await makeRecipeWithPost({ userId: author.id, name: "Blocked dal" });
    const blocked = await makeUser();
    await db.insertInto("blocks").values({ blocker_id: author.id, blocked_id: blocked.id, created_at: new Date().toISOString() }).execute();
    const hidden = await feedFor(author.id, await signedInCookie(blocked.id));
    expect(hidden.status).toBe(404);
    expect(hidden.headers.get("Cache-Control")).toBe(PERSONAL);

    const admin = await makeUser({ role: "ADMIN" });
    await db.updateTable("users").set({ suspended_at: new Date().toISOString() }).where("id", "=", author.id).execute();
    expect((await feedFor(author.id)).status).toBe(404);
    const adminView = await feedFor(author.id, await signedInCookie(admin.id));
    expect(adminView.status).toBe(200);
    expect(await adminView.text()).toContain("Blocked dal");
    expect(adminView.headers.get("Cache-Control")).toBe(PERSONAL);
  });
});
