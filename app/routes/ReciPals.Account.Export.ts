// "Download my data" (/ReciPals/Account/Export, docs/rules.md#own-account): the signed-in person's
// data as a zip, streamed as it is made. Personal: never kept by any cache. The download is made
// in app/server/pages/account-page.server.ts.
import type { LoaderFunctionArgs } from "@remix-run/node";

import { loadExportPage } from "~/server/pages/account-page.server";

export const loader = ({ request }: LoaderFunctionArgs) => loadExportPage(request);
