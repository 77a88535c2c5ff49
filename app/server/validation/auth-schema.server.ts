import { z } from "zod";

import { USER_LIMITS } from "~/lib/limits";

export const FILL_ALL_FIELDS = "Please fill in all fields";
export const PASSWORDS_DONT_MATCH = "Passwords don't match";
export const USERNAME_TAKEN = "That username is already taken. Please choose another.";

// Rules shared by sign-up, the profile editor and the API (docs/rules.md#people-fields).
export const nameField = z
  .string()
  .trim()
  .min(1, FILL_ALL_FIELDS)
  .max(USER_LIMITS.name, `Name must be at most ${USER_LIMITS.name} characters.`);

export const usernameField = z
  .string()
  .trim()
  .min(1, FILL_ALL_FIELDS)
  .max(USER_LIMITS.username, `Username must be at most ${USER_LIMITS.username} characters.`)
  .min(USER_LIMITS.usernameMin, `Username must be at least ${USER_LIMITS.usernameMin} characters.`)
  .regex(/^[A-Za-z0-9_.]+$/, "Username may use only letters, digits, _ and .");

export const newPasswordField = z
  .string()
  .min(1, FILL_ALL_FIELDS)
  .max(USER_LIMITS.password, `Password must be at most ${USER_LIMITS.password} characters.`);

export const LoginSchema = z.object({
  username: z
    .string()
    .trim()
    .min(1, FILL_ALL_FIELDS)
    .max(USER_LIMITS.username, `Username must be at most ${USER_LIMITS.username} characters.`),
  password: newPasswordField,
});

export const SignupSchema = z
  .object({
    name: nameField,
    username: usernameField,
    password: newPasswordField,
    verifyPassword: z.string().min(1, FILL_ALL_FIELDS),
  })
  .refine((value) => value.password === value.verifyPassword, {
    message: PASSWORDS_DONT_MATCH,
    path: ["verifyPassword"],
  });

export const SIGNUP_FIELDS = ["name", "username", "email", "password", "verifyPassword"] as const;
export const LOGIN_FIELDS = ["username", "password"] as const;
