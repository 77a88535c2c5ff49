import crypto from "node:crypto";

import { z } from "zod";

import { USER_LIMITS } from "~/lib/limits";

import { nameField, usernameField } from "./auth-schema.server";
import { ProfileTagsSchema } from "./tags-schema.server";

export const SAVE_FAILED = "Failed to save changes. Please try again.";
export const IMAGE_FAILED = "Failed to process the image. Please try again.";
export const INCORRECT_ADMIN_PASSWORD = "Incorrect admin password";
export const ADMIN_GRANTED = "Admin access granted!";
export const ADMIN_SECRET_UNSET =
  "Admin access cannot be granted here: this server has no admin password set. Ask an administrator to change your role.";
export const USER_NOT_FOUND = "User not found.";
export const NOT_ALLOWED = "You may only edit your own profile.";

export const PROFILE_FIELDS = ["name", "username", "email", "password", "currentPassword", "role", "bio", "adminPassword"] as const;
export type ProfileField = (typeof PROFILE_FIELDS)[number] | "tags" | "photo";

export const ProfileEditSchema = z.object({
  name: nameField,
  username: usernameField,
  // Empty keeps the old password (docs/rules.md#profile-editing); never trimmed, spaces may be part of it.
  password: z.string().max(USER_LIMITS.password, `Password must be at most ${USER_LIMITS.password} characters.`),
  role: z.enum(["USER", "ADMIN"], { error: "Please choose User or Admin." }),
  bio: z
    .string()
    .trim()
    .max(USER_LIMITS.bio, `Bio must be at most ${USER_LIMITS.bio} characters.`),
  adminPassword: z.string().max(USER_LIMITS.password, INCORRECT_ADMIN_PASSWORD),
  tags: ProfileTagsSchema,
});

export type ProfileEdit = z.infer<typeof ProfileEditSchema>;

/** Compares a typed admin password with the secret without leaking its length or content by timing. */
export function adminSecretMatches(typed: string, secret: string): boolean {
  const a = crypto.createHash("sha256").update(typed).digest();
  const b = crypto.createHash("sha256").update(secret).digest();
  return crypto.timingSafeEqual(a, b);
}
