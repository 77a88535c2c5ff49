import { redirect, type LoaderFunctionArgs } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { requireAdmin } from "~/server/session.server";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return redirect(paths.adminUsers());
}
