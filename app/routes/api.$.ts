import { ApiError, API_MESSAGES, apiRoute } from "~/server/http/api.server";

// Any other /api/… path: a JSON 404 (never the HTML not-found page), CORS headers included.
const notFound = async (): Promise<Response> => {
  throw new ApiError(404, API_MESSAGES.notFound);
};
const handle = apiRoute({ GET: notFound, POST: notFound, PUT: notFound, DELETE: notFound });
export const loader = handle;
export const action = handle;
