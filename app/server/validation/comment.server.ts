import { z } from "zod";

export const COMMENT_MAX = 1000;

export const CommentSchema = z.object({
  text: z
    .string()
    .trim()
    .min(1, "Please write a comment before posting.")
    .max(COMMENT_MAX, `Comments can be at most ${COMMENT_MAX.toLocaleString("en-US")} characters.`),
});
