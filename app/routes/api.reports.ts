import { apiRoute } from "~/server/http/api.server";
import { getReports, postReport } from "~/server/api/reports-api.server";

// GET /api/reports (ADMIN: the queue); POST /api/reports {kind, target_id, reason, text?} (docs/rules.md#reports-and-moderation).
const handle = apiRoute({ GET: getReports, POST: postReport });
export const loader = handle;
export const action = handle;
