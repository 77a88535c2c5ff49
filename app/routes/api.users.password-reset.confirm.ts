import { apiRoute } from "~/server/http/api.server";
import { confirmReset } from "~/server/api/account-api.server";

// POST /api/users/password-reset/confirm {"token","password"}: sets the new password from a reset link.
const handle = apiRoute({ POST: confirmReset });
export const loader = handle;
export const action = handle;
