import type { LoaderFunctionArgs } from "@remix-run/node";

import { answerFederation } from "~/server/api/federation-api.server";

// GET /nodeinfo/2.1: what this server is — its software, protocols, usage (docs/federation.md).
export const loader = ({ request }: LoaderFunctionArgs) => answerFederation(request);
