import { z } from "zod";

// Raw text caps before parsing: 10,000 pasted lines or a megabyte never reach the parser.
export const AdminTextSchema = z.object({
  text: z.string().max(200_000, "That text is too long to be a recipe."),
});
