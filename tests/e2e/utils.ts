import path from "node:path";

import SQLite from "better-sqlite3";
import { expect, type Page } from "@playwright/test";

export const SEEDED_USER = { username: "jasminduong09", password: "ReciPals", id: "123" };
export const ADMIN = { username: "admin", password: "e2e-admin-password" };

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

export async function signIn(page: Page, { username, password }: { username: string; password: string }) {
  await page.goto("/ReciPals/Account/Login");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/ReciPals\/Home$/);
}

/** Reads the e2e database directly (read-only) for facts the pages must never show. */
export function readDb<T>(query: (db: SQLite.Database) => T): T {
  const db = new SQLite(path.join(process.env.E2E_DATA_DIR ?? path.resolve(".e2e-data"), "recipals.db"), { readonly: true, fileMustExist: true });
  try {
    return query(db);
  } finally {
    db.close();
  }
}

/** Signs up a brand-new user through the two sign-up pages and returns their credentials. */
export async function signUpFresh(page: Page, prefix = "e2e") {
  const username = uniqueName(prefix);
  const password = "a fine password";
  await page.goto("/ReciPals/Account/Signup");
  await page.getByLabel("Name", { exact: true }).fill(`Tester ${username}`);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByLabel("Verify Password").fill(password);
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page).toHaveURL(/SignupTags$/);
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/ReciPals\/Account\/Profile\/[0-9a-f-]{36}$/);
  const id = page.url().split("/").at(-1)!;
  return { username, password, id };
}

/** A bot post for this test alone, so parallel tests never touch the same likes or comments. */
export function botPostFor(projectName: string, slot: number): { postId: string; recipeId: string } {
  const n = 100 + slot * 2 + (projectName === "no-js" ? 1 : 0);
  return { postId: `recipeBot-P${n}`, recipeId: `recipeBot-R${n}` };
}
