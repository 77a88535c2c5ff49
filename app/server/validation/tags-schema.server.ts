import { z } from "zod";

import { MAX_PROFILE_TAGS, PROFILE_TAGS, TAG_LIMIT_MESSAGE } from "~/lib/tags";

export const UNKNOWN_TAG = "Please choose tags from the list.";

/** Profile tags: catalogue entries only, no repeats, at most three (docs/rules.md#profile-tags). */
export const ProfileTagsSchema = z
  .array(z.string())
  .transform((tags) => [...new Set(tags)])
  .pipe(
    z
      .array(z.string().refine((tag) => PROFILE_TAGS.includes(tag), UNKNOWN_TAG))
      .max(MAX_PROFILE_TAGS, TAG_LIMIT_MESSAGE),
  );

export function readTags(formData: FormData): string[] {
  return formData.getAll("tags").filter((value): value is string => typeof value === "string");
}
