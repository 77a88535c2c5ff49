import { createRequestHandler, type LoaderFunctionArgs } from "@remix-run/node";
import { describe, expect, it } from "vitest";

import * as entry from "~/entry.server";
import * as rootRoute from "~/root";
import * as layoutRoute from "~/routes/ReciPals";
import * as homeRoute from "~/routes/ReciPals.Home";
import { db } from "~/server/db/connection.server";
import { getUser, getUserId } from "~/server/auth/session.server";

import { serverBuildOf } from "../support/server-build";
import { getRequest, makeUser, ORIGIN, signedInCookie } from "../support/app";

// A page reads its session once (app/server/auth/session.server.ts): Remix hands the loaders of one GET
// the same request object (our patch of @remix-run/server-runtime, patches/README.md), and the
// signed-in user is remembered per request object.

type Loader = (args: LoaderFunctionArgs) => unknown;

/** Remix's request handler over root → ReciPals → Home, with each loader's request recorded. */
function homeHandler() {
  const seen: Array<{ route: string; request: Request }> = [];
  const watched = (route: string, module: { loader: Loader }) => ({
    ...module,
    loader: (args: LoaderFunctionArgs) => {
      seen.push({ route, request: args.request });
      return module.loader(args);
    },
  });
  const build = serverBuildOf(entry, {
    root: { path: "", module: watched("root", rootRoute) },
    "routes/ReciPals": { parentId: "root", path: "ReciPals", module: layoutRoute },
    "routes/ReciPals.Home": { parentId: "routes/ReciPals", path: "Home", module: watched("home", homeRoute) },
  });
  return { handle: createRequestHandler(build, "production"), seen };
}

describe("one session read per page", () => {
  it("Remix hands the root and page loaders of a GET the same request (the server-runtime patch is applied)", async () => {
    const user = await makeUser();
    const { handle, seen } = homeHandler();
    const response = await handle(getRequest("/ReciPals/Home", await signedInCookie(user.id)));
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(user.username);
    expect(seen.map((entry) => entry.route).sort()).toEqual(["home", "root"]);
    expect(seen[0]!.request).toBe(seen[1]!.request);
  });

  it("a URL carrying ?index still reaches the loaders without it", async () => {
    const { handle, seen } = homeHandler();
    const response = await handle(new Request(`${ORIGIN}/ReciPals/Home?index&seed=5`));
    expect(response.status).toBe(200);
    for (const { request } of seen) expect(new URL(request.url).search).toBe("?seed=5");
  });

  it("within one GET the user is read once: a session ended meanwhile still shows the page being rendered", async () => {
    const user = await makeUser();
    const request = getRequest("/ReciPals/Home", await signedInCookie(user.id));
    const first = await getUser(request);
    expect(first?.username).toBe(user.username);
    await db.deleteFrom("sessions").where("user_id", "=", user.id).execute();
    expect(await getUser(request)).toBe(first);
    expect(await getUserId(request)).toBe(user.id);
    // The next request reads the database again: signed out.
    expect(await getUser(getRequest("/ReciPals/Home", request.headers.get("Cookie") ?? ""))).toBeNull();
  });

  it("a form post reads the session afresh each time (an action may change who is signed in)", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    const post = new Request(`${ORIGIN}/ReciPals/Home`, { method: "POST", headers: { Cookie: cookie } });
    expect((await getUser(post))?.id).toBe(user.id);
    await db.deleteFrom("sessions").where("user_id", "=", user.id).execute();
    expect(await getUser(post)).toBeNull();
    expect(await getUserId(post)).toBeNull();
  });

  it("an expired session is no user, in the one query that reads session and user together", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    await db.updateTable("sessions").set({ expires_at: Date.now() - 1 }).where("user_id", "=", user.id).execute();
    expect(await getUser(getRequest("/ReciPals/Home", cookie))).toBeNull();
    expect(await getUserId(getRequest("/ReciPals/Home", cookie))).toBeNull();
  });

  it("the same Cookie header on page after page: signed in while its session lasts, signed out once it ends; one changed character is not the same", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    for (let page = 0; page < 3; page++) expect((await getUser(getRequest("/ReciPals/Home", cookie)))?.id).toBe(user.id);
    const tampered = cookie.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    expect(await getUser(getRequest("/ReciPals/Home", tampered))).toBeNull();
    expect(await getUser(getRequest("/ReciPals/Home", `theme=dark; ${cookie}`))).not.toBeNull();
    await db.deleteFrom("sessions").where("user_id", "=", user.id).execute();
    expect(await getUser(getRequest("/ReciPals/Home", cookie))).toBeNull();
    expect(await getUserId(new Request(`${ORIGIN}/ReciPals/Home`, { method: "POST", headers: { Cookie: cookie } }))).toBeNull();
  });
});
