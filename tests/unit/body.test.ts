import fs from "node:fs";
import path from "node:path";

import { beforeAll, describe, expect, it } from "vitest";

import * as recipeRoute from "~/routes/api.recipes.$recipe_id";
import * as userRoute from "~/routes/api.users.$id";
import * as followRoute from "~/routes/api.users.follow.$id";
import { action as loginAction } from "~/routes/ReciPals.Account.Login";
import { action as signupAction } from "~/routes/ReciPals.Account.Signup";
import { action as recipeAction } from "~/routes/ReciPals.Recipes.$rid";
import { BODY_LIMITS, BODY_MESSAGES, queryText, readForm } from "~/server/http/body.server";
import { requestRules, type RequestRules } from "~/server/http/route-rules.server";
import { db } from "~/server/db/connection.server";

import { appRoutes } from "../support/app-routes";

import { call } from "../support/api";
import { makeRecipeWithPost } from "../support/factories";
import { makeUser, ORIGIN, settle, signedInCookie } from "../support/app";

const form = (address: string, body: string | FormData, contentType?: string) =>
  new Request(new URL(address, ORIGIN), { method: "POST", body, headers: contentType ? { "Content-Type": contentType } : {} });

/** A body that arrives without a declared length, counting how much of it was pulled. */
function streamed(address: string, totalBytes: number) {
  const state = { pulled: 0 };
  const chunk = new TextEncoder().encode(`a=${"b".repeat(16 * 1024 - 2)}`);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled >= totalBytes) return controller.close();
      state.pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const request = new Request(new URL(address, ORIGIN), {
    method: "POST",
    body,
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    duplex: "half",
  } as RequestInit & { duplex: "half" });
  return { request, state };
}

describe("the limit for each request body comes from the route it reaches", () => {
  let limitFor: RequestRules["bodyLimitFor"];
  beforeAll(async () => {
    limitFor = requestRules(await appRoutes()).bodyLimitFor;
  }, 60_000);

  const MULTIPART = "multipart/form-data; boundary=x";
  const FORM = "application/x-www-form-urlencoded";
  it.each([
    ["/ReciPals/Account/Login", FORM, BODY_LIMITS.formBytes],
    ["/ReciPals/Account/Login", MULTIPART, BODY_LIMITS.formBytes],
    ["/ReciPals/Account/Login.data", FORM, BODY_LIMITS.formBytes],
    ["/ReciPals/Recipes/r1", FORM, BODY_LIMITS.formBytes],
    // The admin's text form is an index route: its posts say ?index (a plain form and Remix's client alike).
    ["/ReciPals/Account/Admin/Recipes/r1?index", FORM, BODY_LIMITS.longTextFormBytes],
    ["/ReciPals/Account/Admin/Recipes/r1.data?index", FORM, BODY_LIMITS.longTextFormBytes],
    ["/ReciPals/Account/Admin/Recipes/r1", FORM, BODY_LIMITS.formBytes],
    ["/ReciPals/Editor/r1", MULTIPART, BODY_LIMITS.multipartBytes],
    ["/ReciPals/Editor/r1.data", MULTIPART, BODY_LIMITS.multipartBytes],
    ["/recipals/editor/r1", MULTIPART, BODY_LIMITS.multipartBytes],
    ["/ReciPals/Editor/r1", FORM, BODY_LIMITS.formBytes],
    ["/ReciPals/Account/Profile/u1/Edit", MULTIPART, BODY_LIMITS.multipartBytes],
    // With JavaScript the profile editor posts to its .data address (a URL-pattern copy gave it 64 KB).
    ["/ReciPals/Account/Profile/u1/Edit.data", MULTIPART, BODY_LIMITS.multipartBytes],
    ["/recipals/account/profile/u1/edit.data", MULTIPART, BODY_LIMITS.multipartBytes],
    ["/ReciPals/Account/Profile/u1.data", MULTIPART, BODY_LIMITS.formBytes],
    ["/ReciPals/Nowhere/At/All", MULTIPART, BODY_LIMITS.formBytes],
    ["/api/recipes", "application/json", BODY_LIMITS.photoJsonBytes],
    ["/api/recipes/r1", "application/json", BODY_LIMITS.photoJsonBytes],
    ["/api/recipes/search", "application/json", BODY_LIMITS.jsonBytes],
    ["/api/posts/p1", "application/json", BODY_LIMITS.photoJsonBytes],
    ["/api/posts/p1/comments", "application/json", BODY_LIMITS.jsonBytes],
    ["/api/users", "application/json", BODY_LIMITS.photoJsonBytes],
    ["/api/users/u1", "application/json", BODY_LIMITS.photoJsonBytes],
    ["/api/users/signin", "application/json", BODY_LIMITS.jsonBytes],
    ["/api/users/signup", "application/json", BODY_LIMITS.jsonBytes],
    ["/api/users/u1/save", "application/json", BODY_LIMITS.jsonBytes],
    ["/api/users/follow/u1", "application/json", BODY_LIMITS.jsonBytes],
    ["/api/anything/new", "application/json", BODY_LIMITS.jsonBytes],
  ])("%s (%s): %d bytes", (address, type, bytes) => {
    const url = new URL(address, ORIGIN);
    expect(limitFor(url.pathname, url.search, type).bytes).toBe(bytes);
  });

  it("gives every page address the same limit as its .data address (what Remix's client posts to)", async () => {
    const routes = await appRoutes();
    const fullPath = (id: string): string => {
      const route = routes[id]!;
      const own = route.path ?? "";
      return route.parentId ? [fullPath(route.parentId), own].filter(Boolean).join("/") : own;
    };
    const pages = Object.values(routes).filter((route) => !route.id.startsWith("routes/api.") && "action" in route.module);
    expect(pages.length).toBeGreaterThan(15);
    for (const route of pages) {
      const path = `/${fullPath(route.id).replace(/:[\w-]+/g, "x").replace(/\*$/, "x/y")}`;
      const search = route.index ? "?index" : "";
      for (const type of [MULTIPART, FORM]) {
        expect(limitFor(`${path}.data`, search, type), `${route.id} ${type}`).toEqual(limitFor(path, search, type));
      }
    }
  });

  it("is the photo limit for every route whose action reads photos: each says so", async () => {
    const routes = await appRoutes();
    // A route's action, or the page module it calls (app/server/pages/), reads the photos.
    const sourceOf = (file: string) => {
      const text = fs.readFileSync(file, "utf8");
      const pages = [...text.matchAll(/from "~\/server\/pages\/([\w-]+\.server)"/g)].map((match) => path.resolve(__dirname, "../../app/server/pages", `${match[1]}.ts`));
      return [text, ...pages.map((page) => fs.readFileSync(page, "utf8"))].join("\n");
    };
    const readsPhotos = Object.values(routes)
      .filter((route) => /readMultipartFormLenient|processImage/.test(sourceOf(route.file)))
      .map((route) => route.id);
    const declared = Object.values(routes)
      .filter((route) => (route.module as { requestBody?: string }).requestBody === "photo-form")
      .map((route) => route.id);
    expect(readsPhotos.sort()).toEqual(declared.sort());
    // The recipe editor, the profile editor and "I made this".
    expect(declared.length).toBe(3);
  });

  it("stops the server at start when a route declares a kind that does not exist", () => {
    const routes = { root: { id: "root", path: "", module: {} }, "routes/x": { id: "routes/x", parentId: "root", path: "x", module: { requestBody: "huge" } } };
    expect(() => requestRules(routes)).toThrow(/routes\/x: requestBody must be one of/);
  });
});

describe("page actions read their form once, within the limit", () => {
  it("refuses a form over 64 KB with 413 and a clear message, after reading no more than the limit", async () => {
    const { request, state } = streamed("/ReciPals/Account/Login", 50 * 1024 * 1024);
    const thrown = await readForm(request).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(413);
    expect(await (thrown as Response).text()).toMatch(/too large for this form \(64 KB at most\)/);
    expect(state.pulled).toBeLessThan(BODY_LIMITS.formBytes + 64 * 1024);
  });

  it.each<[string, () => Promise<unknown>]>([
    ["Login", () => loginAction({ request: form("/ReciPals/Account/Login", `username=a&password=${"x".repeat(100_000)}`, "application/x-www-form-urlencoded"), params: {}, context: {} })],
    ["Signup", () => signupAction({ request: form("/ReciPals/Account/Signup", `name=${"x".repeat(100_000)}`, "application/x-www-form-urlencoded"), params: {}, context: {} })],
    [
      "a signed-in person's comment",
      async () => {
        const request = form("/ReciPals/Recipes/r1", `intent=comment&text=${"x".repeat(100_000)}`, "application/x-www-form-urlencoded");
        request.headers.set("Cookie", await signedInCookie((await makeUser()).id));
        return recipeAction({ request, params: { rid: "r1" }, context: {} });
      },
    ],
  ])("%s: a 100 KB form is refused with 413", async (_what, run) => {
    const outcome = await settle(run);
    expect(outcome).toBeInstanceOf(Response);
    expect((outcome as Response).status).toBe(413);
  });
});

describe("a form that declares its length (every browser's form post)", () => {
  const declared = (body: string, length = Buffer.byteLength(body)) =>
    new Request(new URL("/ReciPals/Account/Login", ORIGIN), {
      method: "POST",
      body,
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Content-Length": String(length) },
    });

  it("is read whole, at once", async () => {
    const formData = await readForm(declared("intent=like&_fetcher=1&text=caf%C3%A9"));
    expect([...formData.entries()]).toEqual([["intent", "like"], ["_fetcher", "1"], ["text", "café"]]);
  });

  it("is still refused past the limit when it carries more than it declares (a request made in this process)", async () => {
    const thrown = await readForm(declared(`a=${"x".repeat(100_000)}`, 20)).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(413);
    expect(await (thrown as Response).text()).toMatch(/too large for this form \(64 KB at most\)/);
  });
});

describe("what a form body must be", () => {
  const asUser = async () => signedInCookie((await makeUser()).id);
  const commentCount = async () => Number((await db.selectFrom("comments").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n);

  it.each(["text/plain", "application/json", "application/xml", "application/octet-stream", "text/csv"])(
    "a comment sent as %s is refused with 415, nothing stored",
    async (type) => {
      const recipe = await makeRecipeWithPost({ userId: (await makeUser()).id });
      const before = await commentCount();
      const request = form(`/ReciPals/Recipes/${recipe.recipeId}`, "intent=comment&text=hello", type);
      request.headers.set("Cookie", await asUser());
      const outcome = (await settle(() => recipeAction({ request, params: { rid: recipe.recipeId }, context: {} }))) as Response;
      expect(outcome.status).toBe(415);
      expect(await outcome.text()).toMatch(/web form/);
      expect(await commentCount()).toBe(before);
    },
  );

  it("bytes that are not UTF-8, raw or percent-escaped, are refused with 400; valid text is read as browsers send it", async () => {
    const recipe = await makeRecipeWithPost({ userId: (await makeUser()).id });
    const cookie = await asUser();
    const before = await commentCount();
    for (const body of [
      Buffer.concat([Buffer.from("intent=comment&text="), Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80])]),
      Buffer.from("intent=comment&text=%FF%FE"),
      Buffer.from("intent=comment&text=%ED%A0%80"),
    ]) {
      const request = new Request(new URL(`/ReciPals/Recipes/${recipe.recipeId}`, ORIGIN), {
        method: "POST",
        body,
        headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
      });
      const outcome = (await settle(() => recipeAction({ request, params: { rid: recipe.recipeId }, context: {} }))) as Response;
      expect(outcome.status).toBe(400);
    }
    expect(await commentCount()).toBe(before);
    const ok = await readForm(form("/x", "a=caf%C3%A9+au+lait&b=100%25%2&c=%E2%9C%93&d", "application/x-www-form-urlencoded"));
    expect([...ok.entries()]).toEqual([["a", "café au lait"], ["b", "100%%2"], ["c", "✓"], ["d", ""]]);
  });

  it("a form holding NUL, in a value or a name, is refused with 400 and the message; nothing stored", async () => {
    const recipe = await makeRecipeWithPost({ userId: (await makeUser()).id });
    const cookie = await asUser();
    const before = await commentCount();
    for (const body of ["intent=comment&text=hi%00there", "intent=comment&text=hi&x%00=1"]) {
      const request = form(`/ReciPals/Recipes/${recipe.recipeId}`, body, "application/x-www-form-urlencoded");
      request.headers.set("Cookie", cookie);
      const outcome = (await settle(() => recipeAction({ request, params: { rid: recipe.recipeId }, context: {} }))) as Response;
      expect(outcome.status).toBe(400);
      expect(await outcome.text()).toBe(BODY_MESSAGES.nul);
    }
    expect(await commentCount()).toBe(before);
  });
});

describe("NUL in JSON, path parameters and search boxes", () => {
  it("a JSON string or key holding NUL is refused with 400 and the message; an escaped backslash-u is text", async () => {
    const owner = await makeUser();
    const recipe = await makeRecipeWithPost({ userId: owner.id });
    const cookie = await signedInCookie(owner.id);
    for (const body of ['{"name":"Pie\\u0000"}', '{"na\\u0000me":"Pie"}']) {
      const answer = await call(recipeRoute, "PUT", `/api/recipes/${recipe.recipeId}`, { raw: body, contentType: "application/json", cookie, params: { recipe_id: recipe.recipeId } });
      expect(answer.status).toBe(400);
      expect(answer.body.message).toBe(BODY_MESSAGES.nul);
    }
    const answer = await call(recipeRoute, "PUT", `/api/recipes/${recipe.recipeId}`, { raw: '{"name":"Pie \\\\u0000"}', contentType: "application/json", cookie, params: { recipe_id: recipe.recipeId } });
    expect(answer.status).toBe(200);
    const row = await db.selectFrom("recipes").select("name").where("id", "=", recipe.recipeId).executeTakeFirstOrThrow();
    expect(row.name).toBe("Pie \\u0000");
  });

  it("a path parameter holding NUL is refused with 400; a search box drops it", async () => {
    const answer = await call(userRoute, "GET", "/api/users/a%00b", { params: { id: "a\u0000b" } });
    expect(answer.status).toBe(400);
    expect(queryText(new URLSearchParams("q=pi%00e"), "q")).toBe("pie");
  });
});

describe("what an API write call may carry", () => {
  it("a call that takes no body refuses one that is not a JSON object, and runs nothing", async () => {
    const [me, them] = [await makeUser(), await makeUser()];
    const cookie = await signedInCookie(me.id);
    const follows = async () => Number((await db.selectFrom("follows").select((eb) => eb.fn.countAll<number>().as("n")).where("follower_id", "=", me.id).executeTakeFirstOrThrow()).n);
    for (const [raw, contentType, status] of [
      ['{"username":"admin","password":', "application/json", 400],
      ["[1,2]", "application/json", 400],
      ["hello", "text/plain", 415],
      ["--x\r\n", "multipart/form-data;", 415],
    ] as const) {
      const answer = await call(followRoute, "POST", `/api/users/follow/${them.id}`, { raw, contentType, cookie, params: { id: them.id } });
      expect(answer.status, raw).toBe(status);
    }
    expect(await follows()).toBe(0);
    // A JSON object with anything in it is not for this call either.
    expect((await call(followRoute, "POST", `/api/users/follow/${them.id}`, { body: { username: { deep: [] } }, cookie, params: { id: them.id } })).status).toBe(400);
    expect(await follows()).toBe(0);
    // No body at all, or an empty JSON object, is the ordinary call.
    expect((await call(followRoute, "POST", `/api/users/follow/${them.id}`, { cookie, params: { id: them.id } })).status).toBe(200);
    expect((await call(followRoute, "POST", `/api/users/follow/${them.id}`, { body: {}, cookie, params: { id: them.id } })).status).toBe(200);
    expect(await follows()).toBe(1);
  });

  it("an admin's DELETE with a body that is not a JSON object deletes nothing", async () => {
    const admin = await makeUser({ role: "ADMIN" });
    const victim = await makeUser();
    const answer = await call(userRoute, "DELETE", `/api/users/${victim.id}`, {
      raw: `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
      contentType: "application/json",
      cookie: await signedInCookie(admin.id),
      params: { id: victim.id },
    });
    expect(answer.status).toBe(400);
    expect(await db.selectFrom("users").select("id").where("id", "=", victim.id).executeTakeFirst()).toBeDefined();
  });

  it("a recipe PUT with none of the recipe's fields changes nothing, not even the post's caption", async () => {
    const owner = await makeUser();
    const recipe = await makeRecipeWithPost({ userId: owner.id, description: "Savory beef" });
    await db.updateTable("posts").set({ caption: "savory beef" }).where("id", "=", recipe.postId!).execute();
    const answer = await call(recipeRoute, "PUT", `/api/recipes/${recipe.recipeId}`, { body: { a: 1 }, cookie: await signedInCookie(owner.id), params: { recipe_id: recipe.recipeId } });
    expect(answer.status).toBe(200);
    expect((await db.selectFrom("posts").select("caption").where("id", "=", recipe.postId!).executeTakeFirstOrThrow()).caption).toBe("savory beef");
  });
});
