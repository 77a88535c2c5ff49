// "Create" (/ReciPals/Create): no page of its own, a redirect to a fresh recipe's editor (or to
// Login); also the phone's share target. The rules are app/server/pages/create-page.server.ts.
import type { LoaderFunctionArgs } from "@remix-run/node";

import { loadCreatePage } from "~/server/pages/create-page.server";

export const loader = ({ request }: LoaderFunctionArgs) => loadCreatePage(request);
