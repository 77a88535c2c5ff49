import type { z } from "zod";

/** One message per field (the first issue wins), keyed by the field's top-level name. */
export function issuesToErrors(error: z.ZodError, rename: (field: string) => string = (field) => field): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) {
    const head = issue.path[0];
    const field = rename(typeof head === "string" ? head : typeof head === "number" ? String(head) : "body");
    errors[field] ??= issue.message;
  }
  return errors;
}

/**
 * The body without its null-valued fields: a client that sends `"bio": null` means "nothing
 * here", which the merge rules treat like a missing field.
 */
export function withoutNulls(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null));
}
