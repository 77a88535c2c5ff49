import { AsyncLocalStorage } from "node:async_hooks";

// What the request log line says about the request being served that only the app knows (who is
// signed in): the server's request middleware opens the notes, the session code writes in them.
// Held per request by AsyncLocalStorage, so no loader or action has to pass anything along.

export interface RequestNotes {
  /** The request's id (X-Request-Id). */
  readonly id: string;
  /** The signed-in account whose session the request carried, once a loader or action read it. */
  userId: string | null;
}

const notes = new AsyncLocalStorage<RequestNotes>();

/** Runs `work` (the rest of the request's handling) with `request` as its notes. */
export function withRequestNotes<T>(request: RequestNotes, work: () => T): T {
  return notes.run(request, work);
}

/** The signed-in account of the request being served (nothing outside a request). */
export function noteSignedIn(userId: string): void {
  const current = notes.getStore();
  if (current) current.userId = userId;
}

/** The id of the request being served, for a log line written inside it. */
export function currentRequestId(): string | undefined {
  return notes.getStore()?.id;
}
