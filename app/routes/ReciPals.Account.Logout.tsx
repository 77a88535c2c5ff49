import { redirect, type ActionFunctionArgs } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { logout } from "~/server/session.server";

// Signing out changes state, so it is a POST only; a GET just goes home.
export const loader = () => redirect(paths.home());

export async function action({ request }: ActionFunctionArgs) {
  return logout(request);
}
