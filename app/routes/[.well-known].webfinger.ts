import type { LoaderFunctionArgs } from "@remix-run/node";

import { answerFederation } from "~/server/api/federation-api.server";

// GET /.well-known/webfinger?resource=acct:username@host: who @username@host is (docs/federation.md).
export const loader = ({ request }: LoaderFunctionArgs) => answerFederation(request);
