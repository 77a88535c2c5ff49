import { redirect, type LoaderFunctionArgs } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { requireAdmin } from "~/server/auth/session.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin({ request, context });
  return redirect(paths.adminUsers());
}
