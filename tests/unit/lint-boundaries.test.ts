import fs from "node:fs";
import path from "node:path";

import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// The layers as eslint.config.js writes them: each boundary rule fires where it should and stays
// quiet where the import is allowed (a rule that never fires guards nothing).

const root = path.resolve(__dirname, "../..");
const eslint = new ESLint({ cwd: root });

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).map((message) => `${message.ruleId}: ${message.message}`);
}

const restricted = (list: string[]) => list.filter((line) => line.startsWith("@typescript-eslint/no-restricted-imports") || line.startsWith("no-restricted-syntax"));

describe("the layers", () => {
  it.each([
    ["a component importing a server value", "app/components/x.tsx", 'import { db } from "~/server/db/connection.server";\nexport const X = () => String(db);\n', /server modules/],
    ["app/lib importing a server value", "app/lib/x.ts", 'import { COMMENT_MAX } from "../server/validation/comment-schema.server";\nexport const n = COMMENT_MAX;\n', /server modules/],
    ["a server module importing a component", "app/server/x.server.ts", 'import { Avatar } from "~/components/avatar";\nexport const a = Avatar;\n', /must not import components/],
    ["the HTTP plumbing importing a service's type", "app/server/http/x.server.ts", 'import type { Outcome } from "../services/outcome-service.server";\nexport type O = Outcome;\n', /below the services/],
    ["the image pipeline importing an API door", "app/server/media/x.server.ts", 'import { unwrap } from "../api/outcome-api.server";\nexport const u = unwrap;\n', /below the services/],
    ["a query importing a service", "app/server/queries/x.server.ts", 'import { setLike } from "../services/interactions-service.server";\nexport const s = setLike;\n', /bottom layer/],
    ["app code importing the seed", "app/server/x.server.ts", 'import { seedDatabase } from "../../seed/index";\nexport const s = seedDatabase;\n', /never imports seed/],
    ["the server runtime importing a query", "app/server/runtime/x.server.ts", 'import { db } from "../db/connection.server";\nexport const d = db;\n', /facade/],
    ["the server runtime importing a route", "app/server/runtime/x.server.ts", 'import { loader } from "~/routes/ReciPals.Home";\nexport const l = loader;\n', /facade/],
    ["a server module importing the runtime", "app/server/services/x.server.ts", 'import { serve } from "../runtime/serve.server";\nexport const s = serve;\n', /runtime/],
    ["a route importing the session reader (its page module's job)", "app/routes/x.tsx", 'import { getUser } from "~/server/auth/session.server";\nexport const g = getUser;\n', /page module/],
    ["a route importing a query", "app/routes/x.tsx", 'import { getRecipeDetail } from "~/server/queries/recipes.server";\nexport const g = getRecipeDetail;\n', /page module/],
    ["a route importing a helper of the HTTP room", "app/routes/x.tsx", 'import { invariantResponse } from "~/server/http/responses.server";\nexport const i = invariantResponse;\n', /page module/],
    ["a page module importing a component", "app/server/pages/x-page.server.ts", 'import { Avatar } from "~/components/avatar";\nexport const a = Avatar;\n', /never import routes or components/],
    ["a page module importing a route, even a type", "app/server/pages/x-page.server.ts", 'import type { loader } from "~/routes/ReciPals.Home";\nexport type L = typeof loader;\n', /never import routes or components/],
    ["a service importing a page module", "app/server/services/x.server.ts", 'import { loadHomePage } from "../pages/home-page.server";\nexport const l = loadHomePage;\n', /for route modules only/],
    ["a query importing a page module", "app/server/queries/x.server.ts", 'import { loadHomePage } from "~/server/pages/home-page.server";\nexport const l = loadHomePage;\n', /for route modules only/],
    ["a route reading the raw body", "app/routes/x.tsx", "export async function action({ request }: { request: Request }) {\n  return request.formData();\n}\n", /readForm/],
  ])("refuses %s", async (_what, file, code, message) => {
    const found = restricted(await problems(file, code));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(message);
  });

  it.each([
    ["a component importing a server type", "app/components/x.tsx", 'import type { PostCardData } from "~/server/queries/feed.server";\nexport const f = (p: PostCardData) => p;\n'],
    ["a component typing a fetcher by a route's action", "app/components/x.tsx", 'import type { action } from "~/routes/ReciPals.Account.Follow.$uid";\nexport type A = typeof action;\n'],
    ["a route importing a service", "app/routes/x.tsx", 'import { setLike } from "~/server/services/interactions-service.server";\nexport const s = setLike;\n'],
    ["a route importing its page module and a query's type", "app/routes/x.tsx", 'import { loadHomePage } from "~/server/pages/home-page.server";\nimport type { PostCardData } from "~/server/queries/feed.server";\nexport const l = loadHomePage;\nexport type P = PostCardData;\n'],
    ["a route importing the capped body readers", "app/routes/x.tsx", 'import { readForm } from "~/server/http/body.server";\nimport { readMultipartFormLenient } from "~/server/http/multipart.server";\nexport const r = [readForm, readMultipartFormLenient];\n'],
    ["an API route importing its door and the API's wrapper", "app/routes/api.x.ts", 'import { apiRoute } from "~/server/http/api.server";\nimport { listRecipes } from "~/server/api/recipes-api.server";\nexport const loader = apiRoute({ GET: listRecipes });\n'],
    ["a page module importing the session, a query and a service", "app/server/pages/x-page.server.ts", 'import { getUser } from "~/server/auth/session.server";\nimport { getRecipeDetail } from "~/server/queries/recipes.server";\nimport { setLike } from "~/server/services/interactions-service.server";\nexport const x = [getUser, getRecipeDetail, setLike];\n'],
    ["the server runtime importing the facade and the settings", "app/server/runtime/x.server.ts", 'import { requestRules } from "../facade.server";\nimport { env } from "../env.server";\nimport { pipeBody } from "./remix-adapter.server";\nimport express from "express";\nexport const r = [requestRules, env, pipeBody, express];\n'],
    ["the server entry importing the runtime", "app/entry.server.tsx", 'export { serve } from "./server/runtime/serve.server";\n'],
    ["the HTTP plumbing importing the database and the shared limits", "app/server/http/x.server.ts", 'import { db } from "../db/connection.server";\nimport { UPLOAD_LIMITS } from "~/lib/upload-limits";\nexport const d = [db, UPLOAD_LIMITS];\n'],
    ["a service importing a query", "app/server/services/x.server.ts", 'import { db } from "../db/connection.server";\nexport const d = db;\n'],
  ])("allows %s", async (_what, file, code) => {
    expect(restricted(await problems(file, code))).toEqual([]);
  });
});

describe("file names", () => {
  const files = fs.readdirSync(path.join(root, "app"), { recursive: true, encoding: "utf8" }).filter((file) => /\.(ts|tsx)$/.test(file));

  it("never repeat under app/: a name alone says which file it is", () => {
    const byName = new Map<string, string[]>();
    for (const file of files) byName.set(path.basename(file), [...(byName.get(path.basename(file)) ?? []), file]);
    expect([...byName.values()].filter((same) => same.length > 1)).toEqual([]);
  });

  it.each([
    ["server/pages", "-page.server.ts"],
    ["server/services", "-service.server.ts"],
    ["server/api", "-api.server.ts"],
    ["server/validation", "-schema.server.ts"],
  ])("in app/%s end in %s", (room, ending) => {
    const inRoom = files.filter((file) => path.dirname(file) === room);
    expect(inRoom.length).toBeGreaterThan(0);
    expect(inRoom.filter((file) => !file.endsWith(ending))).toEqual([]);
  });
});
