// The admin area (/ReciPals/Account/Admin) and its index, behind the admin guard (docs/rules.md#admin-guard);
// the index opens the Users tab. Serves the area's layout route and its index route.
import { redirect, type AppLoadContext } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { requireAdmin } from "~/server/auth/session.server";

/** The admin area's layout: nothing to show, only the guard every admin page sits under. */
export async function loadAdminPage(request: Request, context: AppLoadContext) {
  await requireAdmin({ request, context });
  return null;
}

/** The admin area's own address opens its Users tab. */
export async function loadAdminIndexPage(request: Request, context: AppLoadContext) {
  await requireAdmin({ request, context });
  return redirect(paths.adminUsers());
}
