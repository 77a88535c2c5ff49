/** Throws an honest status (404, 403, …) with a message when a condition fails (guards first, honest statuses: docs/architecture.md). */
export function invariantResponse(condition: unknown, message: string, status: number): asserts condition {
  if (!condition) throw new Response(message, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

/** The submit button's `intent`; an action answers 400 to anything it does not know. */
export function readIntent(formData: FormData): string {
  const intent = formData.get("intent");
  return typeof intent === "string" ? intent : "";
}
