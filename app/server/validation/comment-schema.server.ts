import { z } from "zod";

import { COMMENT_MAX } from "~/lib/limits";

/** The limit, for pages whose script should not load ~/lib/limits for it. */
export { COMMENT_MAX };

export const CommentSchema = z.object({
  text: z
    .string()
    .trim()
    .min(1, "Please write a comment before posting.")
    .max(COMMENT_MAX, `Comments can be at most ${COMMENT_MAX.toLocaleString("en-US")} characters.`),
});
