import { describe, expect, it } from "vitest";

import { ApiError } from "~/server/http/api.server";
import { planPicture } from "~/server/api/pictures-api.server";
import { draftFromRecipeNode } from "~/server/import/draft.server";
import { IMPORT_LIMITS } from "~/server/import/import.server";
import { findRecipeJsonLd } from "~/server/import/json-ld.server";

import { fetchMealDbSeedData } from "../../seed/mealdb";

// Regular expressions whose work grows with the square (or the cube) of the text they read: every
// parser that reads text from outside is fed hostile input as large as can actually reach it, and
// must finish well within a second. Import by link reads pages of up to 2 MB (after
// decompression); before the fix, a 2 MB page of repeated "<script " took minutes, and a
// description of 2 MB of "<" over twenty minutes.
//
// Each run prints its time (console.log: console.error fails the test run).

const PAGE = IMPORT_LIMITS.maxPageBytes;
const BASE = new URL("https://example.com/recipes/1");
const LIMIT_MS = 1_000;

/** `unit` repeated to exactly `length` characters. */
function fill(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/**
 * Runs `run` once, prints how long it took and fails when it took a second or more of this
 * process's CPU: what a hostile text costs the server, whatever else the machine is busy with
 * (wall time on two shared cores measured the neighbours).
 */
function timed<T>(label: string, run: () => T): T {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const result = run();
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(`redos: ${label}: ${cpuMs.toFixed(1)} ms CPU, ${(performance.now() - started).toFixed(1)} ms wall`);
  expect(cpuMs, label).toBeLessThan(LIMIT_MS);
  return result;
}

/** The editor draft of a Recipe node with `overrides`. */
function recipeOf(overrides: Record<string, unknown>) {
  return draftFromRecipeNode({ "@type": "Recipe", name: "Hostile", ...overrides }, BASE);
}

/** `unit` repeated to the size of the largest page (ASCII: characters are bytes). */
const pageOf = (unit: string) => fill(unit, PAGE);

describe("finding JSON-LD in a hostile 2 MB page", () => {
  const pages: [string, string][] = [
    ['"<script " repeated', pageOf("<script ")],
    ['"<script" repeated', pageOf("<script")],
    ["<script type=application/ld+json> repeated, never closed", pageOf("<script type=application/ld+json>")],
    ['<SCRIPT TYPE="application/ld+json"> repeated, never closed', pageOf('<SCRIPT TYPE="application/ld+json">')],
    ['<script type="application/ld+json (quote never closed) repeated', pageOf('<script type="application/ld+json ')],
    ["<script type=application/ld+json a=b  repeated (tag never closed)", pageOf("<script type=application/ld+json a=b ")],
    ['one JSON-LD tag, then "</script " repeated (never a ">")', `<script type="application/ld+json">${pageOf("</script ").slice(40)}`],
    ['one JSON-LD tag, then "</script" and spaces repeated', `<script type=application/ld+json>${pageOf("</script     ").slice(40)}`],
    ['"<" repeated', pageOf("<")],
    ['"</" repeated', pageOf("</")],
    ['"</script" repeated', pageOf("</script")],
    ["non-JSON-LD script tags repeated, never closed", pageOf('<script src="a.js" type="text/javascript">')],
    ["white space inside a tag", `<script${pageOf(" ").slice(10)}`],
  ];
  for (const [label, html] of pages) {
    it(`${label}: no recipe, in well under a second`, () => {
      expect(html.length).toBeLessThanOrEqual(PAGE);
      expect(timed(label, () => findRecipeJsonLd(html))).toBeNull();
    });
  }

  it("finds the recipe after 2 MB of closed but broken JSON-LD blocks", () => {
    const recipe = `<script type="application/ld+json">{"@type":"Recipe","name":"Late"}</script>`;
    const html = pageOf("<script type=application/ld+json>x</script>").slice(0, PAGE - recipe.length) + recipe;
    // Many blocks, each parsed (and refused) by JSON.parse: linear, but the heaviest of these.
    expect(timed("broken JSON-LD blocks, then a recipe", () => findRecipeJsonLd(html))?.name).toBe("Late");
  });

  it("a 2 MB page whose recipe text is one long run of '<': found and cleaned fast", () => {
    const head = `<script type="application/ld+json">{"@type":"Recipe","name":"Soup","description":"`;
    const tail = `"}</script>`;
    const html = head + pageOf("<").slice(0, PAGE - head.length - tail.length) + tail;
    const node = timed("page with a 2 MB description of '<'", () => findRecipeJsonLd(html));
    expect(node?.name).toBe("Soup");
    const { draft } = timed("draft of that description", () => draftFromRecipeNode(node!, BASE));
    expect(draft.description.startsWith("<<<")).toBe(true);
  });
});

describe("turning a hostile Recipe node into a draft", () => {
  // Every text of the node goes through the same cleaning (tags, entities, spaces); a page of 2 MB
  // can put nearly all of it into one field.
  const fields: [string, Record<string, unknown>][] = [
    ['name: "<" repeated', { name: pageOf("<") }],
    ['description: "<a" repeated (tags never closed)', { description: pageOf("<a") }],
    ['description: "<" then ">" far away, repeated', { description: `${pageOf("<a ")}>` }],
    ['description: "&#" repeated', { description: pageOf("&#") }],
    ['description: "&#x" and hex digits, no ";"', { description: `&#x${pageOf("f")}` }],
    ['description: "&" and letters, no ";"', { description: `&${pageOf("a")}` }],
    ['description: "&#1" repeated', { description: pageOf("&#1") }],
    ['description: "&amp;" repeated', { description: pageOf("&amp;") }],
    ["description: spaces before punctuation", { description: pageOf(" .") }],
    ['one ingredient of "<" repeated', { recipeIngredient: [pageOf("<")] }],
    ['instructions: "<" repeated', { recipeInstructions: pageOf("<") }],
    ['instructions: "<br" repeated (never closed)', { recipeInstructions: pageOf("<br") }],
    ['instructions: "< br" and spaces repeated', { recipeInstructions: pageOf("<   br   ") }],
    ['instructions: "<br>" repeated', { recipeInstructions: pageOf("<br>") }],
    ['instructions: "step 1" repeated, one line', { recipeInstructions: pageOf("step 1") }],
    ['instructions: HowToStep text of "<" repeated', { recipeInstructions: [{ "@type": "HowToStep", text: pageOf("<") }] }],
    ["totalTime: P, digits, no unit", { totalTime: `P${pageOf("1")}x` }],
    ["totalTime: PT and 1.1 repeated", { totalTime: `PT${pageOf("1.1")}` }],
    ['totalTime: "<" repeated (not ISO 8601, cleaned)', { totalTime: pageOf("<") }],
    ['prepTime and cookTime: "P1" repeated', { prepTime: pageOf("P1"), cookTime: pageOf("PT1") }],
    ['keywords: "<," repeated', { keywords: pageOf("<,") }],
    ["recipeYield: digits", { recipeYield: pageOf("1") }],
    ['image: "<" repeated', { image: pageOf("<") }],
  ];
  for (const [label, node] of fields) {
    it(`${label}: in well under a second`, () => {
      timed(label, () => recipeOf(node));
    });
  }

  // A JSON list item costs a page 4 bytes ("a",): a 2 MB page lists half a million.
  const ITEMS = Math.floor(PAGE / 4);
  const many = (item: unknown) => Array<unknown>(ITEMS).fill(item);

  it("half a million ingredients: the first 200 kept, with a note, fast", () => {
    const lines = ["", "  ", ...many("Salt (1 pinch)")];
    const { draft, notes } = timed("half a million ingredients", () => recipeOf({ recipeIngredient: lines }));
    expect(draft.sections[0]!.ingredients).toHaveLength(200);
    expect(notes).toContain("Only the first 200 ingredients were kept.");
    timed("half a million blank ingredients", () => recipeOf({ recipeIngredient: many("") }));
  });

  it("half a million steps, as a list or as lines of one text: the first 100 kept, with a note, fast", () => {
    for (const [label, recipeInstructions] of [
      ["half a million steps", many("Stir.")],
      ["half a million HowToSteps", many({ "@type": "HowToStep", text: "Stir." })],
      ["a million lines of one text", pageOf("a\n")],
    ] as const) {
      const { draft, notes } = timed(label, () => recipeOf({ recipeInstructions }));
      expect(draft.steps).toHaveLength(100);
      expect(notes).toContain("Only the first 100 steps were kept.");
    }
    timed("half a million blank steps", () => recipeOf({ recipeInstructions: many("") }));
    timed("two million blank lines of one text", () => recipeOf({ recipeInstructions: pageOf("\n") }));
    timed("half a million empty lists", () => recipeOf({ recipeInstructions: many([]) }));
  });

  it("half a million keywords, categories or photos, fast", () => {
    const tagsOf = (node: Record<string, unknown>) => recipeOf(node).draft.tags;
    expect(timed("keywords: half a million repeats", () => tagsOf({ keywords: [...many("soup"), "tomato", "basil"] }))).toBe("soup");
    expect(timed("keywords: a million commas", () => tagsOf({ keywords: `${pageOf(",")}soup` }))).toBe("soup");
    expect(timed("keywords: a million of one word", () => tagsOf({ keywords: pageOf("a,") }))).toBe("a");
    expect(timed("categories: half a million commas", () => tagsOf({ recipeCategory: many(","), recipeCuisine: ["French"] }))).toBe("French");
    const photo = timed("half a million unusable photos", () => recipeOf({ image: many("javascript:x") })).photoUrl;
    expect(photo).toBeNull();
  });
});

describe("picture fields of the JSON API", () => {
  // A recipe, post or user body may be 12 MB (it can carry photos as data URLs), nearly all of it
  // in one field. Before the fix these did not take long but threw a RangeError (a 500): the data
  // URL expression kept one backtracking entry per ";".
  const BODY = 12 * 1024 * 1024;
  const options = { current: null, fallback: "/images/recipe-placeholder.png", field: "photo" };
  const values: [string, string, string][] = [
    ['"data:" and ";" repeated, no comma', `data:${fill(";", BODY)}`, "Please send the picture"],
    ['"data:" and ";a" repeated, then a comma', `data:${fill(";a", BODY)},`, "Please choose an image file."],
    ['"data:image/png" and ";a" repeated, then a comma', `data:image/png${fill(";a", BODY)},AAAA`, "Please send the picture"],
    ['"data:image/png;base64" and ";" repeated, no comma', `data:image/png;base64${fill(";", BODY)}`, "Please send the picture"],
    ['"data:" and a 12 MB media type', `data:${fill("image/", BODY)},`, "Please send the picture"],
  ];
  for (const [label, value, message] of values) {
    it(`${label}: a 400, in well under a second`, async () => {
      const started = performance.now();
      const error: unknown = await planPicture(value, options).catch((thrown: unknown) => thrown);
      const ms = performance.now() - started;
      console.log(`redos: picture ${label}: ${ms.toFixed(1)} ms`);
      expect(ms).toBeLessThan(LIMIT_MS);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect((error as ApiError).message).toContain(message);
    });
  }

  it("an image data URL is still read, in any letter case", async () => {
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
    for (const value of [`data:image/png;base64,${png}`, `DATA:IMAGE/PNG;BASE64,${png}`, `data:image/png;name=a.png;base64,${png}`]) {
      expect((await planPicture(value, options)).kind, value).toBe("upload");
    }
    for (const value of [`data:image/png,${png}`, `data:text/plain;base64,${png}`, `data:;base64,${png}`]) {
      expect(await planPicture(value, options).catch((thrown: unknown) => thrown), value).toBeInstanceOf(ApiError);
    }
  });
});

describe("the TheMealDB base URL", () => {
  it("a URL full of slashes (an environment variable holds at most 128 KiB) is trimmed fast", async () => {
    const baseUrl = `http://mealdb.test/${fill("/", 128 * 1024 - 40)}x//`;
    const asked: string[] = [];
    const fetchStub = (async (url: string | URL | Request) => {
      asked.push(String(url));
      return new Response(JSON.stringify({ meals: [] }), { headers: { "Content-Type": "application/json" } });
    }) as typeof fetch;
    const started = performance.now();
    await expect(fetchMealDbSeedData({ baseUrl, fetch: fetchStub })).rejects.toThrow(/no recipes/);
    const ms = performance.now() - started;
    console.log(`redos: TheMealDB base URL of 128 KiB of slashes (26 letters): ${ms.toFixed(1)} ms`);
    expect(ms).toBeLessThan(LIMIT_MS);
    expect(asked).toHaveLength(26);
    expect(asked).toContain(`${baseUrl.slice(0, -2)}/search.php?f=a`);
  });
});

describe("reading JSON-LD still works", () => {
  const recipe = { "@context": "https://schema.org", "@type": "Recipe", name: "Toast", recipeIngredient: ["Bread (2 slices)"] };
  const json = JSON.stringify(recipe);

  it("a normal page with JSON-LD in its head", () => {
    const html = `<!doctype html><html><head><title>Toast</title>
<script>window.x = "<script>";</script>
<script type="application/ld+json">${json}</script>
</head><body><p>Toast &amp; butter</p></body></html>`;
    const node = findRecipeJsonLd(html);
    expect(node?.name).toBe("Toast");
    const { draft } = draftFromRecipeNode(node!, BASE);
    expect(draft.sections[0]!.ingredients).toEqual(["Bread (2 slices)"]);
  });

  it("a '>' inside a quoted attribute does not end the tag", () => {
    expect(findRecipeJsonLd(`<script data-note="a > b" type="application/ld+json">${json}</script>`)?.name).toBe("Toast");
    expect(findRecipeJsonLd(`<script type='application/ld+json' data-note='1 > 0'>${json}</script>`)?.name).toBe("Toast");
    expect(findRecipeJsonLd(`<script data-x="<script type=application/ld+json>" type="text/plain">${json}</script>`)).toBeNull();
  });

  it("any letter case, unquoted or spaced type, parameters, other attributes around", () => {
    for (const html of [
      `<SCRIPT TYPE="application/ld+json">${json}</SCRIPT>`,
      `<Script Type="Application/LD+JSON">${json}</sCrIpT >`,
      `<script type=application/ld+json>${json}</script>`,
      `<script type = "application/ld+json" >${json}</script\n>`,
      `<script id="ld" async type="application/ld+json; charset=utf-8" nonce="abc">${json}</script>`,
      `<script\ntype="application/ld+json"\n>${json}</script>`,
      `<script/type="application/ld+json">${json}</script>`,
    ]) {
      expect(findRecipeJsonLd(html)?.name, html).toBe("Toast");
    }
  });

  it("takes the block up to the first </script>, and reads the next block after it", () => {
    const html = `<script type="application/ld+json">{"@type":"Person"}</script><script type="application/ld+json">${json}</script>`;
    expect(findRecipeJsonLd(html)?.name).toBe("Toast");
    // "</script x>" does not close the block (only spaces may come before ">").
    expect(findRecipeJsonLd(`<script type="application/ld+json">${json}</script x></script>`)).toBeNull();
  });

  it("another script's text is skipped whole: tags written in its strings are not read", () => {
    const withCode = (code: string) => `<script>${code}</script><script type="application/ld+json">${json}</script>`;
    // An unclosed quote inside a string would otherwise swallow the rest of the page.
    expect(findRecipeJsonLd(withCode(`var s = "<script data-x='";`))?.name).toBe("Toast");
    expect(findRecipeJsonLd(withCode(`if (a<script.length && b > c) go();`))?.name).toBe("Toast");
    expect(findRecipeJsonLd(`<script>document.write('<script type="application/ld+json">${json}<\\/script>');</script>`)).toBeNull();
  });

  it("other script types, other tags and look-alike attributes are not JSON-LD", () => {
    expect(findRecipeJsonLd(`<script type="text/javascript">${json}</script>`)).toBeNull();
    expect(findRecipeJsonLd(`<script>${json}</script>`)).toBeNull();
    expect(findRecipeJsonLd(`<scripts type="application/ld+json">${json}</scripts>`)).toBeNull();
    expect(findRecipeJsonLd(`<script data-type="application/ld+json">${json}</script>`)).toBeNull();
    expect(findRecipeJsonLd(`<script type="application/ld+jsonp">${json}</script>`)).toBeNull();
  });

  it("a JSON-LD block that is never closed gives no recipe, fast", () => {
    expect(timed("unclosed block", () => findRecipeJsonLd(`<script type="application/ld+json">${json}`))).toBeNull();
    expect(findRecipeJsonLd(`<script type="application/ld+json">${json}</script`)).toBeNull();
    // A tag whose quote is never closed swallows the rest of the page, as in a browser.
    expect(findRecipeJsonLd(`<script src='a.js><script type="application/ld+json">${json}</script>`)).toBeNull();
  });

  it("tags are dropped from text, a '<' with no '>' after it is kept, entities decoded", () => {
    const read = (description: string) => recipeOf({ description }).draft.description;
    expect(read("Mix <b>well</b>, then rest.")).toBe("Mix well, then rest.");
    expect(read("Keep a < b and 3 <4")).toBe("Keep a < b and 3 <4");
    expect(read("1 < 2 and 3 > 2")).toBe("1 2");
    expect(read("Salt &amp; pepper &#189; &#xBD; &frac12; &unknown; &constructor;")).toBe("Salt & pepper ½ ½ ½ &unknown; &constructor;");
    const steps = recipeOf({ recipeInstructions: "1. Toast <i>it</i>.<br/>Step 2: Butter it.<BR >3) Eat < 5 minutes" }).draft.steps;
    expect(steps).toEqual(["Toast it.", "Butter it.", "Eat < 5 minutes"]);
  });
});
