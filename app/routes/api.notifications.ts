import { apiRoute } from "~/server/http/api.server";
import { listNotifications } from "~/server/api/notifications-api.server";

// GET /api/notifications: the caller's notifications (401 for visitors).
const handle = apiRoute({ GET: listNotifications });
export const loader = handle;
export const action = handle;
