// The admin area's own address (/ReciPals/Account/Admin): it opens the Users tab
// (app/server/pages/admin-page.server.ts).
import type { LoaderFunctionArgs } from "@remix-run/node";

import { loadAdminIndexPage } from "~/server/pages/admin-page.server";

export const loader = ({ request, context }: LoaderFunctionArgs) => loadAdminIndexPage(request, context);
