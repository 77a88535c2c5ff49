import { apiRoute } from "~/server/http/api.server";
import { resolveReport } from "~/server/api/reports-api.server";

// POST /api/reports/resolve {kind, target_id, action, why?} (ADMIN; docs/rules.md#reports-and-moderation).
const handle = apiRoute({ POST: resolveReport });
export const loader = handle;
export const action = handle;
