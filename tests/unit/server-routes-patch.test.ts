import { createRequire } from "node:module";
import path from "node:path";

import { createRequestHandler } from "@remix-run/node";
import { afterEach, describe, expect, it } from "vitest";

import * as entry from "~/entry.server";
import * as rootRoute from "~/root";
import * as layoutRoute from "~/routes/ReciPals";
import * as homeRoute from "~/routes/ReciPals.Home";
import * as infoRoute from "~/routes/ReciPals.Info";

import { serverBuildOf } from "../support/server-build";
import { getRequest } from "../support/app";

// The patch of @remix-run/react and react-router-dom/server (patches/README.md): the route objects
// a render needs are built once per build and used by every render after, where upstream built
// them, and the static router's data routes from them, for each render.

const handle = createRequestHandler(
  serverBuildOf(entry, {
    root: { path: "", module: rootRoute },
    "routes/ReciPals": { parentId: "root", path: "ReciPals", module: layoutRoute },
    "routes/ReciPals.Home": { parentId: "routes/ReciPals", path: "Home", module: homeRoute },
    "routes/ReciPals.Info": { parentId: "routes/ReciPals", path: "Info", module: infoRoute },
  }),
  "production",
);

// The copy the server loads (CommonJS), with the counters the patch keeps; none without the patch.
const { UNSAFE_serverRoutesOf: serverRoutesOf } = createRequire(path.resolve(__dirname, "../../package.json"))("@remix-run/react/dist/server.js") as {
  UNSAFE_serverRoutesOf?: { stats: { built: number; reused: number } };
};
const stats = () => {
  expect(serverRoutesOf, "the patch of @remix-run/react is not applied").toBeDefined();
  return { ...serverRoutesOf!.stats };
};

afterEach(() => {
  delete process.env.RECIPALS_PATCH_SERVER_ROUTES;
});

describe("the server's route objects, kept per build", () => {
  it("are built for the first render and used again by every other page's", async () => {
    const before = stats();
    const pages = [];
    for (const path of ["/ReciPals/Home", "/ReciPals/Info", "/ReciPals/Home", "/ReciPals/Info"]) {
      const response = await handle(getRequest(path));
      expect(response.status).toBe(200);
      pages.push(await response.text());
    }
    const after = stats();
    expect(after.built - before.built).toBeLessThanOrEqual(1);
    expect(after.reused - before.reused).toBeGreaterThanOrEqual(3);
    // The pages are whole: each the page it was asked for.
    expect(pages[1]).toContain("<h1");
    expect(pages[0]).toContain('id="main"');
  });

  it("RECIPALS_PATCH_SERVER_ROUTES=off builds them for every render, as upstream, and the pages are the same", async () => {
    const on = await (await handle(getRequest("/ReciPals/Info"))).text();
    process.env.RECIPALS_PATCH_SERVER_ROUTES = "off";
    const before = stats();
    const off = await (await handle(getRequest("/ReciPals/Info"))).text();
    expect(stats()).toEqual(before);
    // Equal but for each render's nonce.
    const withoutNonce = (html: string) => html.replace(/nonce="[^"]*"/g, 'nonce=""').replace(/'nonce-[^']*'/g, "");
    expect(withoutNonce(off)).toBe(withoutNonce(on));
  });
});
