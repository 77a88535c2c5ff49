import fs from "node:fs/promises";
import path from "node:path";

import { describeIssues, SeedDataSchema, type SeedData } from "./seed-data";

/** Reads and validates the sample file; every failure is one readable sentence. */
export async function readSeedFile(file: string): Promise<SeedData> {
  const resolved = path.resolve(file);
  let raw: string;
  try {
    raw = await fs.readFile(resolved, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(code === "ENOENT" ? "the file does not exist" : `the file cannot be read (${code ?? String(error)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new Error(`the file is not valid JSON (${(error as Error).message})`);
  }
  const parsed = SeedDataSchema.safeParse(json);
  if (!parsed.success) throw new Error(`the file does not have the expected {users, recipes, posts} shape: ${describeIssues(parsed.error)}`);
  // An empty import would still be marked as done and block every later import.
  if (parsed.data.recipes.length === 0) throw new Error("the file holds no recipes");
  return parsed.data;
}
