import { z } from "zod";

import { COOK_LIMITS, COOK_MESSAGES } from "~/lib/cook-limits";

// An "I made this" entry as typed or sent (docs/rules.md#i-made-this). Page forms send text; the
// JSON API numbers or text; both come through here.

const wholeNumber = (message: string, min: number, max: number) =>
  z.preprocess(
    (value) => (typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value),
    z.number({ error: message }).int(message).min(min, message).max(max, message),
  );

export const CookSchema = z.object({
  rating: wholeNumber(COOK_MESSAGES.rating, 1, 5),
  note: z.preprocess(
    (value) => (value === undefined || value === null ? "" : value),
    z.string({ error: COOK_MESSAGES.noteTooLong }).transform((text) => text.replace(/\r\n/g, "\n").trim()).pipe(z.string().max(COOK_LIMITS.noteMax, COOK_MESSAGES.noteTooLong)),
  ),
  servings: z.preprocess(
    (value) => (value === undefined || value === null || (typeof value === "string" && value.trim() === "") ? null : value),
    wholeNumber(COOK_MESSAGES.servings, 1, COOK_LIMITS.servingsMax).nullable(),
  ),
});

