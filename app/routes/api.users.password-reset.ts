import { apiRoute } from "~/server/http/api.server";
import { requestReset } from "~/server/api/account-api.server";

// POST /api/users/password-reset {"login"}: a link to choose a new password, when the account has a confirmed address (always 202).
const handle = apiRoute({ POST: requestReset });
export const loader = handle;
export const action = handle;
