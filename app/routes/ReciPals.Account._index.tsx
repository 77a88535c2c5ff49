import { redirect, type LoaderFunctionArgs } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { getUserId } from "~/server/auth/session.server";

export async function loader({ request }: LoaderFunctionArgs) {
  const userId = await getUserId(request);
  return redirect(userId ? paths.profile(userId) : paths.login());
}
