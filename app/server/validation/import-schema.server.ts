import { z } from "zod";

// Import by link (docs/rules.md#import-by-link): the link typed into the editor, and a forgiving reading of a
// schema.org `Recipe` node. Pages in the wild write every property in several shapes (a string,
// a number, an array, an object), so each property is read on its own and one odd property
// never sinks the import (`.catch(undefined)`).

export const IMPORT_URL_MAX = 2048;

export const IMPORT_LINK_MESSAGES = {
  required: "Please enter a link to import.",
  tooLong: `The link is too long (${IMPORT_URL_MAX} characters at most).`,
  invalid: "Please enter a full link, starting with http:// or https://.",
  notHttp: "Only http:// and https:// links can be imported.",
  credentials: "Links with a user name or password cannot be imported.",
} as const;

/** The link as typed → a URL we are willing to try (http or https, no credentials). */
export const ImportLinkSchema = z
  .string()
  .trim()
  .min(1, IMPORT_LINK_MESSAGES.required)
  .max(IMPORT_URL_MAX, IMPORT_LINK_MESSAGES.tooLong)
  .transform((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      // "example.com/recipe" without a scheme is not a link we can fetch.
      ctx.addIssue({ code: "custom", message: IMPORT_LINK_MESSAGES.invalid });
      return z.NEVER;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      ctx.addIssue({ code: "custom", message: IMPORT_LINK_MESSAGES.notHttp });
      return z.NEVER;
    }
    if (url.username || url.password) {
      ctx.addIssue({ code: "custom", message: IMPORT_LINK_MESSAGES.credentials });
      return z.NEVER;
    }
    return url;
  });

const Text = z.union([z.string(), z.number()]).transform(String);
/** Some pages give a list where one value is meant ("name": ["Soup"]): take the first text. */
const OneText = z.union([
  Text,
  z.array(z.unknown()).transform((items) => {
    const first = items.find((item) => typeof item === "string" || typeof item === "number");
    return first === undefined ? undefined : String(first);
  }),
]);
const TextList = z.union([Text.transform((text) => [text]), z.array(z.unknown()).transform((items) => items.filter((item) => typeof item === "string" || typeof item === "number").map(String))]);

/** A schema.org `Recipe` node, loosely; unknown properties are kept (and ignored). */
export const JsonLdRecipeSchema = z.looseObject({
  name: OneText.optional().catch(undefined),
  headline: OneText.optional().catch(undefined),
  description: OneText.optional().catch(undefined),
  recipeIngredient: TextList.optional().catch(undefined),
  /** The older name of recipeIngredient, still seen on some sites. */
  ingredients: TextList.optional().catch(undefined),
  /** A string, a list of strings, HowToStep / HowToSection / ItemList nodes: read by the importer. */
  recipeInstructions: z.unknown().optional(),
  totalTime: OneText.optional().catch(undefined),
  prepTime: OneText.optional().catch(undefined),
  cookTime: OneText.optional().catch(undefined),
  recipeYield: z.union([Text, z.array(z.unknown())]).optional().catch(undefined),
  keywords: TextList.optional().catch(undefined),
  recipeCategory: TextList.optional().catch(undefined),
  recipeCuisine: TextList.optional().catch(undefined),
  /** A URL, an ImageObject, or a list of either: read by the importer. */
  image: z.unknown().optional(),
});

export type JsonLdRecipe = z.infer<typeof JsonLdRecipeSchema>;
