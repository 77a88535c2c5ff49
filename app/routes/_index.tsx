import { redirect } from "@remix-run/node";

import { paths } from "~/lib/paths";

export const loader = () => redirect(paths.home());
