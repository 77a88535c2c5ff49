import { ApiError } from "../http/api.server";
import type { Outcome } from "../services/outcome-service.server";

/** A service's result, or its refusal as a JSON error (status, `message`, `errors`, `refused`, Retry-After). */
export function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  const extra: Record<string, unknown> = {};
  if (outcome.errors) extra.errors = outcome.errors;
  if (outcome.refused) extra.refused = outcome.refused;
  const headers: Record<string, string> = outcome.retryAfterSeconds ? { "Retry-After": String(outcome.retryAfterSeconds) } : {};
  throw new ApiError(outcome.status, outcome.message, extra, headers);
}
