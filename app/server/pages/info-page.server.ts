// About (/ReciPals/Info): the one thing the page does not carry itself, the address of this
// version's source (from the server's settings).
import type { AppLoadContext } from "@remix-run/node";

import { scopeSharedCache } from "~/server/cache/shared-cache.server";
import { projectSourceUrl } from "~/server/http/site.server";

/** The address of this version's source, or null when none is set. */
export function loadInfoPage(context?: AppLoadContext) {
  // Nothing from the database: no write changes this page.
  scopeSharedCache(context);
  return { sourceUrl: projectSourceUrl() };
}
