// The admin's Recipes table (/ReciPals/Account/Admin/Recipes, docs/rules.md#admin-area): one page of
// the recipes the search box matches. A recipe's detail is admin-recipe-page.server.ts.
import type { AppLoadContext } from "@remix-run/node";

import { requireAdmin } from "~/server/auth/session.server";
import { queryText } from "~/server/http/body.server";
import { listRecipesForAdmin } from "~/server/queries/admin.server";
import { parsePage } from "~/server/queries/feed.server";

/** The recipes table: one page of the recipes the search box matches. */
export async function loadAdminRecipesPage(request: Request, context: AppLoadContext) {
  await requireAdmin({ request, context });
  const url = new URL(request.url);
  const q = queryText(url.searchParams, "q").slice(0, 100);
  const page = parsePage(url.searchParams.get("page"));
  return { q, page, ...(await listRecipesForAdmin({ q, page })) };
}
