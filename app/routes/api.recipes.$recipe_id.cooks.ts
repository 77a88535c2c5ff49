import { apiRoute, noBody } from "~/server/http/api.server";
import type { RequestBodyKind } from "~/server/http/body.server";
import { addCook, deleteCook, listCooks } from "~/server/api/cooks-api.server";

// GET /api/recipes/{id}/cooks; POST {rating, note?, servings?, photo?} adds or changes one's own
// "I made this"; DELETE removes it (docs/rules.md#i-made-this). A photo may come as a data URL:
// the larger JSON limit (app/server/http/body.server.ts).
export const requestBody = "photo-json" satisfies RequestBodyKind;
const handle = apiRoute({ GET: listCooks, POST: addCook, DELETE: noBody(deleteCook) }, requestBody);
export const loader = handle;
export const action = handle;
