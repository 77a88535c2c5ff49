import { federationAnswer } from "../federation/federation.server";

// The routes of the federation's addresses (app/routes/ap.$.ts, the .well-known ones, NodeInfo):
// each hands its request to the federation library (docs/federation.md).

/** Answers a request to an ActivityPub, WebFinger or NodeInfo address (404 while the server does not federate). */
export function answerFederation(request: Request): Promise<Response> {
  return federationAnswer(request);
}
