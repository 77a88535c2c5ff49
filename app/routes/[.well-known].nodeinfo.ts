import type { LoaderFunctionArgs } from "@remix-run/node";

import { answerFederation } from "~/server/api/federation-api.server";

// GET /.well-known/nodeinfo: where this server's NodeInfo is (docs/federation.md).
export const loader = ({ request }: LoaderFunctionArgs) => answerFederation(request);
