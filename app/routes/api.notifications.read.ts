import { apiRoute } from "~/server/http/api.server";
import { markNotificationsRead } from "~/server/api/notifications-api.server";

// POST /api/notifications/read {ids?}: marks the caller's notifications read.
const handle = apiRoute({ POST: markNotificationsRead });
export const loader = handle;
export const action = handle;
