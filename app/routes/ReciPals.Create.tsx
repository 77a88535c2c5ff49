import crypto from "node:crypto";

import { redirect, type LoaderFunctionArgs } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { getUserId } from "~/server/auth/session.server";

// "Create" is not a fixed link (docs/rules.md#navigation): every click mints a fresh recipe id, which
// opens the editor in create mode. Visitors are sent to Login with the reason.
export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await getUserId(request);
  if (!userId) return redirect(`${paths.login(paths.create())}&reason=create`);
  return redirect(paths.editor(crypto.randomUUID()));
}
