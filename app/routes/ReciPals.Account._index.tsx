// /ReciPals/Account: no page of its own; one's profile, or Login (app/server/pages/account-page.server.ts).
import type { LoaderFunctionArgs } from "@remix-run/node";

import { loadAccountPage } from "~/server/pages/account-page.server";

export const loader = ({ request }: LoaderFunctionArgs) => loadAccountPage(request);
