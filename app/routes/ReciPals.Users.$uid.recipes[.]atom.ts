import type { LoaderFunctionArgs } from "@remix-run/node";

import { loadRecipesFeedPage } from "~/server/pages/recipes-feed-page.server";

// /ReciPals/Users/{uid}/recipes.atom: a public Atom feed of a user's recipes (docs/rules.md#atom-feeds). It is
// deliberately outside /ReciPals/Account/ (sign-in only, docs/rules.md#pages-that-need-sign-in): feed readers do not sign in,
// and the feed carries nothing a visitor cannot already read on the recipe pages. The answer is
// app/server/pages/recipes-feed-page.server.ts.
export const loader = ({ request, params }: LoaderFunctionArgs) => loadRecipesFeedPage(request, params.uid ?? "");
