import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";

import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { draftToFields, emptyDraft, FIELD, type EditorResult } from "~/lib/recipe-form";
import { isoDuration } from "~/lib/structured-data";
import { action } from "~/routes/ReciPals.Editor.$rid";
import { db } from "~/server/db/connection.server";
import { isPrivateAddress } from "~/server/import/addresses.server";
import { draftFromRecipeNode } from "~/server/import/draft.server";
import { ImportError, importRecipe, IMPORT_MESSAGES, type ImportOptions } from "~/server/import/import.server";
import { findRecipeJsonLd } from "~/server/import/json-ld.server";
import { durationText } from "~/server/import/text.server";
import { RATE_LIMITS } from "~/server/auth/limits.server";
import { IMPORT_LINK_MESSAGES } from "~/server/validation/import-schema.server";

import { dataOf, makeUser, ORIGIN, routeArgs, settle, signedInCookie } from "../support/app";
import { useScratchUploads } from "../support/settings";

// Import by link against a stub page server on 127.0.0.1, started here. The stub is a private
// address, so the happy paths pass `allowPrivate` (what IMPORT_ALLOW_PRIVATE=1 does for e2e) and
// the refusals run with the default rules.

const LONG_NAME = "The Very Best Slow-Roasted Tomato and Garlic Soup With Basil Oil";

const recipeNode = {
  "@type": ["Recipe", "NewsArticle"],
  name: LONG_NAME,
  description: "A soup &amp; a story. ".repeat(12).trim(),
  image: [{ "@type": "ImageObject", url: "/photo.png" }],
  recipeIngredient: ["Tomatoes (1 kg)", "Garlic (1 head)", "  ", "Olive oil (3 tbsp)"],
  recipeInstructions: [
    { "@type": "HowToSection", name: "Roast", itemListElement: [{ "@type": "HowToStep", text: "Roast the tomatoes." }, { "@type": "HowToStep", text: "Roast the garlic." }] },
    { "@type": "HowToStep", name: "Blend", text: "Blend everything with <b>stock</b>." },
    "Season to taste.",
  ],
  totalTime: "PT1H20M",
  recipeYield: ["4", "4 bowls"],
  keywords: "soup, tomato, vegetarian, winter",
};

function page(jsonLd: unknown, extra = ""): string {
  return `<!doctype html><html><head><title>Soup</title>
<script type="application/ld+json">${JSON.stringify({ "@context": "https://schema.org", "@graph": [{ "@type": "WebSite", name: "Stub" }, jsonLd] })}</script>
${extra}</head><body><h1>Soup</h1></body></html>`;
}

let server: http.Server;
let base: string;
let port: number;
let photo: Buffer;
const hanging = new Set<http.ServerResponse>();
let hits = 0;

beforeAll(async () => {
  photo = await sharp({ create: { width: 640, height: 480, channels: 3, background: "#c2410c" } }).png().toBuffer();
  server = http.createServer((request, response) => {
    hits += 1;
    const url = new URL(request.url ?? "/", "http://stub");
    const html = (body: string) => response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(body);
    switch (url.pathname) {
      case "/recipe":
        return html(page(recipeNode));
      case "/photo.png":
        return response.writeHead(200, { "Content-Type": "image/png" }).end(photo);
      case "/strings":
        return html(
          `<script type='application/ld+json'>{"@context":"https://schema.org","@type":"Recipe","name":"Toast","description":"Bread,
 browned.","recipeIngredient":"Bread (2 slices)","recipeInstructions":"1. Toast the bread.\\n2. Butter it.<br>Eat.","recipeYield":2,"prepTime":"PT2M","cookTime":"PT3M","image":"https://127.0.0.1:1/none.jpg"}</script>`,
        );
      case "/nested":
        return html(page({ "@type": "WebPage", mainEntity: { "@type": "http://schema.org/Recipe", name: "Nested", recipeIngredient: ["Salt"], recipeInstructions: [{ "@type": "HowToStep", name: "Salt it." }] } }));
      case "/gzip":
        return response.writeHead(200, { "Content-Type": "text/html", "Content-Encoding": "gzip" }).end(zlib.gzipSync(page({ ...recipeNode, name: "Zipped soup", image: undefined })));
      case "/plain":
        return html(`<!doctype html><html><head><script type="application/ld+json">{"@type":"Organization","name":"Stub"}</script></head><body>No recipe here.</body></html>`);
      case "/hang":
        hanging.add(response); // never answers
        return;
      case "/trickle":
        response.writeHead(200, { "Content-Type": "text/html" });
        response.write("<html>");
        hanging.add(response); // headers, then nothing more
        return;
      case "/big": {
        response.writeHead(200, { "Content-Type": "text/html" }); // chunked: no Content-Length to go by
        const chunk = Buffer.alloc(64 * 1024, "a");
        let sent = 0;
        const pump = () => {
          while (sent < 3 * 1024 * 1024) {
            sent += chunk.length;
            if (!response.write(chunk)) return response.once("drain", pump);
          }
          response.end();
        };
        response.on("error", () => {});
        return pump();
      }
      case "/big-declared":
        return response.writeHead(200, { "Content-Type": "text/html", "Content-Length": String(3 * 1024 * 1024) }).end();
      case "/redirect":
        return response.writeHead(302, { Location: "/recipe" }).end();
      case "/redirect-metadata":
        return response.writeHead(302, { Location: "http://169.254.169.254/latest/meta-data/" }).end();
      case "/redirect-file":
        return response.writeHead(302, { Location: "file:///etc/passwd" }).end();
      case "/loop":
        return response.writeHead(302, { Location: `/loop?n=${Number(url.searchParams.get("n") ?? 0) + 1}` }).end();
      case "/missing":
        return response.writeHead(404, { "Content-Type": "text/plain" }).end("nope");
      default:
        return response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterEach(() => {
  for (const response of hanging) response.destroy();
  hanging.clear();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const scratch = useScratchUploads("import");

const allowStub: ImportOptions = { allowPrivate: true };

async function refusal(link: string, options: ImportOptions = {}): Promise<ImportError> {
  const error = await importRecipe(link, options).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ImportError);
  return error as ImportError;
}

describe("addresses", () => {
  it("tells private, loopback, link-local and unique-local addresses from public ones", () => {
    const notPublic = [
      "127.0.0.1",
      "127.8.9.10",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fe80::1%eth0",
      "fc00::1",
      "fd12:3456:789a::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "::ffff:7f00:1",
      "64:ff9b::a00:1", // NAT64 of 10.0.0.1
      "2002:c0a8:0101::1", // 6to4 of 192.168.1.1
      "[::1]",
      "not an address",
    ];
    const publicOnes = ["8.8.8.8", "1.1.1.1", "172.32.0.1", "93.184.216.34", "2606:4700:4700::1111", "64:ff9b::808:808"];
    for (const address of notPublic) expect(isPrivateAddress(address), address).toBe(true);
    for (const address of publicOnes) expect(isPrivateAddress(address), address).toBe(false);
  });

  it("refuses every IPv4-compatible and IPv4-mapped address and local-use NAT64, public inside or not", () => {
    const refused = [
      "::8.8.8.8", // IPv4-compatible (::/96)
      "::808:808",
      "::1:2",
      "::ffff:8.8.8.8", // IPv4-mapped (::ffff:0:0/96), even of a public address
      "::ffff:808:808",
      "0:0:0:0:0:ffff:0808:0808",
      "::ffff:127.0.0.1",
      "[::ffff:8.8.8.8]",
      "64:ff9b:1::1", // local-use NAT64 (64:ff9b:1::/48)
      "64:ff9b:1:ffff::8.8.8.8",
      "64:ff9b:1::808:808",
    ];
    for (const address of refused) expect(isPrivateAddress(address), address).toBe(true);
    // Still public: plain IPv4 (BlockList compares IPv4 with IPv6 rules in mapped form, so the
    // mapped range must not be a BlockList rule), IPv6, and the well-known NAT64 prefix of a public
    // IPv4 address; a neighbour of the local-use prefix is not in it.
    const allowed = ["8.8.8.8", "1.1.1.1", "2606:4700::1111", "2606:4700:4700::1111", "64:ff9b::808:808", "64:ff9b:2::1", "1::808:808"];
    for (const address of allowed) expect(isPrivateAddress(address), address).toBe(false);
  });
});

describe("importing a recipe page", () => {
  it("reads Recipe JSON-LD inside @graph into a draft, cut to the editor's limits, and stores its photo", async () => {
    const imported = await importRecipe(`${base}/recipe`, allowStub);
    const { draft } = imported;
    expect(draft.name.length).toBeLessThanOrEqual(50);
    expect(draft.name.endsWith("…")).toBe(true);
    expect(LONG_NAME.startsWith(draft.name.slice(0, -1))).toBe(true);
    expect(draft.description.length).toBeLessThanOrEqual(150);
    expect(draft.description.startsWith("A soup & a story.")).toBe(true);
    expect(draft.sections).toEqual([{ id: "", title: "Main Ingredients", ingredients: ["Tomatoes (1 kg)", "Garlic (1 head)", "Olive oil (3 tbsp)"] }]);
    expect(draft.steps).toEqual(["Roast the tomatoes.", "Roast the garlic.", "Blend everything with stock.", "Season to taste."]);
    expect(draft.totalTime).toBe("1 hr 20 min");
    expect(draft.serves).toBe("4");
    expect(draft.tags).toBe("soup, tomato, vegetarian");
    expect(imported.photo).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
    expect(fs.readdirSync(scratch.dir).some((file) => imported.photo!.endsWith(file))).toBe(true);
    expect(imported.notes.join(" ")).toMatch(/name was longer than 50 characters/);
    expect(imported.notes.join(" ")).toMatch(/description was longer than 150 characters/);
    expect(imported.notes[0]).toMatch(/nothing is saved until then/);
  });

  it("reads instructions given as one string, yield as a number and prep + cook time", async () => {
    const { draft, notes, photo } = await importRecipe(`${base}/strings`, allowStub);
    expect(draft.name).toBe("Toast");
    expect(draft.description).toBe("Bread, browned.");
    expect(draft.sections[0]!.ingredients).toEqual(["Bread (2 slices)"]);
    expect(draft.steps).toEqual(["Toast the bread.", "Butter it.", "Eat."]);
    expect(draft.serves).toBe("2");
    expect(draft.totalTime).toBe("5 min");
    // The photo's address (a closed port) failed: the recipe still comes in, with a note.
    expect(photo).toBeNull();
    expect(notes.join(" ")).toMatch(/photo was not imported/);
  });

  it("finds a Recipe nested in another node, with a full schema.org type URL and HowToStep names", async () => {
    const { draft } = await importRecipe(`${base}/nested`, { ...allowStub, photo: false });
    expect(draft.name).toBe("Nested");
    expect(draft.steps).toEqual(["Salt it."]);
  });

  it("follows a redirect and reads a gzipped page", async () => {
    expect((await importRecipe(`${base}/redirect`, { ...allowStub, photo: false })).source).toBe(`${base}/recipe`);
    expect((await importRecipe(`${base}/gzip`, allowStub)).draft.name).toBe("Zipped soup");
  });

  it("lets IMPORT_ALLOW_PRIVATE=1 open the stub without an option", async () => {
    process.env.IMPORT_ALLOW_PRIVATE = "1";
    try {
      expect((await importRecipe(`${base}/nested`, { photo: false })).draft.name).toBe("Nested");
    } finally {
      delete process.env.IMPORT_ALLOW_PRIVATE;
    }
  });
});

describe("refusals", () => {
  it("refuses a private address when private addresses are not allowed", async () => {
    delete process.env.IMPORT_ALLOW_PRIVATE;
    const before = hits;
    const error = await refusal(`${base}/recipe`);
    expect(error.problem).toBe("refused");
    expect(error.message).toBe(IMPORT_MESSAGES.refused);
    expect(hits).toBe(before); // refused before connecting
    expect((await refusal("http://[::1]:9/")).problem).toBe("refused");
    expect((await refusal("http://0x7f.1/")).problem).toBe("refused"); // 127.0.0.1 in disguise
  });

  it("refuses a host name whose DNS answer is a loopback address", async () => {
    const before = hits;
    const error = await refusal(`http://localhost:${port}/recipe`);
    expect(error.problem).toBe("refused");
    expect(hits).toBe(before);
  });

  it("re-checks every redirect: a public-looking first hop may not lead to a private address", async () => {
    // The stub alone is let through; where it redirects is checked like any other address.
    const onlyStub: ImportOptions = { allowPrivate: (address) => address === "127.0.0.1" };
    expect((await importRecipe(`${base}/redirect`, { ...onlyStub, photo: false })).draft.name).toMatch(/^The Very Best/);
    expect((await refusal(`${base}/redirect-metadata`, onlyStub)).problem).toBe("refused");
    const fileHop = await refusal(`${base}/redirect-file`, allowStub);
    expect(fileHop.message).toBe(IMPORT_MESSAGES.redirectNotHttp);
    expect((await refusal(`${base}/loop`, allowStub)).problem).toBe("too-many-redirects");
  });

  it("gives up on a page that never answers", async () => {
    const started = Date.now();
    const error = await refusal(`${base}/hang`, { ...allowStub, timeoutMs: 400 });
    expect(error.problem).toBe("timeout");
    expect(error.message).toBe(IMPORT_MESSAGES.timeout(400));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect((await refusal(`${base}/trickle`, { ...allowStub, timeoutMs: 400 })).problem).toBe("timeout");
  });

  it("says the 5-second limit in its message by default", () => {
    expect(IMPORT_MESSAGES.timeout(5_000)).toBe("The page took too long to answer (more than 5 seconds).");
  });

  it("stops reading a page past 2 MB, with or without Content-Length", async () => {
    for (const pathname of ["/big", "/big-declared"]) {
      const error = await refusal(`${base}${pathname}`, allowStub);
      expect(error.problem).toBe("too-large");
      expect(error.message).toBe("The page is too large to import (more than 2 MB).");
    }
  });

  it("says so when the page has no recipe, or answers with an error", async () => {
    const none = await refusal(`${base}/plain`, allowStub);
    expect(none.problem).toBe("no-recipe");
    expect(none.message).toBe(IMPORT_MESSAGES.noRecipe);
    expect((await refusal(`${base}/missing`, allowStub)).message).toBe(IMPORT_MESSAGES.httpStatus(404));
  });

  it("takes http and https links only", async () => {
    for (const link of ["ftp://example.com/recipe", "javascript:alert(1)", "file:///etc/passwd", "data:text/html,hi"]) {
      const error = await refusal(link);
      expect(error.problem, link).toBe("invalid-link");
      expect(error.message, link).toBe(IMPORT_LINK_MESSAGES.notHttp);
    }
    expect((await refusal("example.com/recipe")).message).toBe(IMPORT_LINK_MESSAGES.invalid);
    expect((await refusal("   ")).message).toBe(IMPORT_LINK_MESSAGES.required);
    expect((await refusal("https://user:pw@example.com/")).message).toBe(IMPORT_LINK_MESSAGES.credentials);
  });
});

describe("reading JSON-LD", () => {
  it("ignores broken scripts and other types, and tolerates raw line breaks inside strings", () => {
    const html = `<script type="application/ld+json">{not json</script>
<script type="application/ld+json">[{"@type":"Person","name":"Cook"}]</script>
<script type="application/ld+json">{"@type":"Recipe","name":"Line
break"}</script>`;
    expect(findRecipeJsonLd(html)?.name).toBe("Line break");
    expect(findRecipeJsonLd("<p>nothing</p>")).toBeNull();
  });

  it("turns ISO 8601 durations into the editor's words", () => {
    expect(durationText(80)).toBe("1 hr 20 min");
    expect(durationText(45)).toBe("45 min");
    expect(durationText(120)).toBe("2 hr");
    const base = new URL("https://example.com/r/1");
    const time = (totalTime: string) => draftFromRecipeNode({ "@type": "Recipe", name: "x", totalTime }, base).draft.totalTime;
    expect(time("PT90M")).toBe("1 hr 30 min");
    expect(time("P1DT2H")).toBe("26 hr");
    expect(time("About an hour")).toBe("About an hour");
    // What the import writes, the recipe page reads back as the same ISO 8601 duration.
    for (const iso of ["PT1H20M", "PT45M", "PT2H", "PT26H5M"]) expect(isoDuration(time(iso))).toBe(iso);
  });

  it("keeps at most three tags, falls back to category and cuisine, and reads odd yields", () => {
    const base = new URL("https://example.com/r/1");
    const read = (node: Record<string, unknown>) => draftFromRecipeNode({ "@type": "Recipe", name: "x", ...node }, base).draft;
    expect(read({ keywords: ["a", "b, c", "d"] }).tags).toBe("a, b, c");
    expect(read({ recipeCategory: "Dessert", recipeCuisine: ["French"] }).tags).toBe("Dessert, French");
    expect(read({ recipeYield: "Makes 12 cookies" }).serves).toBe("12");
    expect(read({ recipeYield: "a few" }).serves).toBe("1");
    const photoOf = (image: unknown) => draftFromRecipeNode({ "@type": "Recipe", name: "x", image }, base).photoUrl?.href ?? null;
    expect(photoOf({ "@type": "ImageObject", contentUrl: "/a.jpg" })).toBe("https://example.com/a.jpg");
    expect(photoOf(["javascript:x", "b.jpg"])).toBe("https://example.com/r/b.jpg");
    expect(photoOf("ftp://example.com/c.jpg")).toBeNull();
  });
});

describe("the editor's Import button", () => {
  function importForm(link: string, draft = emptyDraft()): FormData {
    const formData = new FormData();
    for (const [name, value] of draftToFields(draft)) formData.append(name, value);
    formData.append(FIELD.mode, "create");
    formData.append(FIELD.importLink, link);
    formData.append(FIELD.intent, "import");
    return formData;
  }

  async function post(rid: string, formData: FormData, cookie: string) {
    const request = new Request(new URL(`/ReciPals/Editor/${rid}`, ORIGIN), { method: "POST", body: formData, headers: { Cookie: cookie } });
    return dataOf<EditorResult>(await settle(() => action(routeArgs(request, { rid }))));
  }

  async function recipeCount() {
    const row = await db.selectFrom("recipes").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  it("fills the draft and carries the photo as pending, saving nothing", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    const before = await recipeCount();
    process.env.IMPORT_ALLOW_PRIVATE = "1";
    try {
      const { status, data } = await post(crypto.randomUUID(), importForm(`${base}/recipe`), cookie);
      expect(status).toBe(200);
      expect(data.kind).toBe("draft");
      expect(data.draft.sections[0]!.title).toBe("Main Ingredients");
      expect(data.draft.steps).toHaveLength(4);
      expect(data.pendingPhoto).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
      expect(data.importLink).toBe(`${base}/recipe`);
      expect(data.importNotes.length).toBeGreaterThan(0);
      expect(data.fieldErrors).toEqual({});
    } finally {
      delete process.env.IMPORT_ALLOW_PRIVATE;
    }
    expect(await recipeCount()).toBe(before);
  });

  it("keeps the draft as typed and puts the reason next to the link when the import is refused", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    const typed = { ...emptyDraft(), name: "My own soup" };
    const { status, data } = await post(crypto.randomUUID(), importForm(`${base}/recipe`, typed), cookie);
    expect(status).toBe(400);
    expect(data.draft.name).toBe("My own soup");
    expect(data.fieldErrors[FIELD.importLink]).toBe(IMPORT_MESSAGES.refused);
    expect(data.focus).toBe(FIELD.importLink);
    expect(data.importLink).toBe(`${base}/recipe`);
  });

  it("allows 10 imports in 10 minutes, then refuses with 429 and a clear message; other people are not slowed", async () => {
    const [user, other] = [await makeUser(), await makeUser()];
    const [cookie, otherCookie] = [await signedInCookie(user.id), await signedInCookie(other.id)];
    process.env.IMPORT_ALLOW_PRIVATE = "1";
    try {
      const answers = await Promise.all(Array.from({ length: 14 }, () => post(crypto.randomUUID(), importForm(`${base}/nested`), cookie)));
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(RATE_LIMITS.importByLink.limit);
      const refused = answers.filter((answer) => answer.status === 429);
      expect(refused).toHaveLength(14 - RATE_LIMITS.importByLink.limit);
      expect(refused[0]!.data.fieldErrors[FIELD.importLink]).toMatch(/^You have imported 10 recipes in a short while\. Please try again in \d+ minutes?\.$/);
      expect((await post(crypto.randomUUID(), importForm(`${base}/nested`), otherCookie)).status).toBe(200);
      // Once the window has passed, the first person may import again.
      await db.updateTable("rate_events").set((eb) => ({ at: eb("at", "-", RATE_LIMITS.importByLink.windowMs) })).where("key", "=", user.id).execute();
      expect((await post(crypto.randomUUID(), importForm(`${base}/nested`), cookie)).status).toBe(200);
    } finally {
      delete process.env.IMPORT_ALLOW_PRIVATE;
    }
  });
});
