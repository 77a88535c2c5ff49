import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

import { answerFederation } from "~/server/api/federation-api.server";

// /ap/…: the ActivityPub addresses (docs/federation.md) — people as actors, their inboxes and
// followers, the shared inbox. Answered by the federation library, which checks every inbox
// POST's HTTP Signature.
export const requestBody = "json";
export const loader = ({ request }: LoaderFunctionArgs) => answerFederation(request);
export const action = ({ request }: ActionFunctionArgs) => answerFederation(request);
