import type { Actor } from "~/lib/permissions";

export type { Actor };

// What every service answers: the result, or a refusal saying why with the status a door should
// answer with. Doors (page actions, /api handlers) turn a refusal into their own shape: a page
// with the message, JSON `{message, errors}`, a fetcher's `{error}`.

// 503: the image store could not take a photo (nothing was written; trying again may work).
export type RefusalStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429 | 503;

export interface Refusal {
  ok: false;
  status: RefusalStatus;
  message: string;
  /** One message per field, for a form or the API's `errors`. */
  errors?: Record<string, string>;
  /** The parts of a request that were refused (the API's whole-object PUTs). */
  refused?: string[];
  /** For 429. */
  retryAfterSeconds?: number;
}

export type Outcome<T = undefined> = { ok: true; value: T } | Refusal;

export function done(): Outcome;
export function done<T>(value: T): Outcome<T>;
export function done<T>(value?: T): Outcome<T | undefined> {
  return { ok: true, value };
}

export function refusal(status: RefusalStatus, message: string, extra: Omit<Refusal, "ok" | "status" | "message"> = {}): Refusal {
  return { ok: false, status, message, ...extra };
}

/** A refusal as a value that can be thrown out of a transaction (it rolls back) and caught by the service. */
export class RefusedError extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
    this.name = "RefusedError";
  }
}

/** Runs `work`; a RefusedError it throws becomes that refusal (after its transaction rolled back). */
export async function refusing<T>(work: () => Promise<Outcome<T>>): Promise<Outcome<T>> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RefusedError) return error.refusal;
    throw error;
  }
}
