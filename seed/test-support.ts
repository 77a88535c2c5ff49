import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { migrateToLatest, openDatabase, type DB } from "../app/server/db/connection.server";

// Shared by the seed tests: a fresh migrated in-memory database per test (real SQL, no
// mocks) and a local stand-in for TheMealDB, so no test depends on the internet.

const here = path.dirname(fileURLToPath(import.meta.url));
export const FIXTURES = path.join(here, "fixtures");

/** The real sample file: never copied into the repository, read from beside it. */
export function sampleFilePath(): string {
  return process.env.RECIPALS_SEED_FILE || path.resolve("../shared/data/recipals-seed.json");
}

export async function freshDb(): Promise<DB> {
  const db = openDatabase(":memory:");
  await migrateToLatest(db);
  return db;
}

/** The tables people's content lives in (what "nothing changed" checks compare). */
export const CONTENT_TABLES = [
  "users",
  "user_tags",
  "follows",
  "recipes",
  "recipe_tags",
  "ingredient_sections",
  "ingredient_lines",
  "steps",
  "posts",
  "likes",
  "comments",
  "saved_recipes",
  "notifications",
  "shopping_recipes",
  "shopping_items",
  "blocks",
  "mutes",
  "reports",
  "moderation_log",
  "cooks",
] as const;

export const ALL_TABLES = [...CONTENT_TABLES, "sessions", "seed_runs"] as const;

export async function countAll(db: DB): Promise<Record<(typeof ALL_TABLES)[number], number>> {
  const counts = {} as Record<(typeof ALL_TABLES)[number], number>;
  for (const table of ALL_TABLES) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  return counts;
}

export interface Stub {
  baseUrl: string;
  /** Request paths with query, in arrival order. */
  calls: string[];
  close(): Promise<void>;
}

/** A TheMealDB stand-in on 127.0.0.1; `answer` gets the letter and returns status and body. */
export async function startMealDbStub(
  answer: (letter: string) => { status: number; body: string } = fixtureAnswer,
): Promise<Stub> {
  const calls: string[] = [];
  const server = http.createServer((request, response) => {
    calls.push(request.url ?? "");
    const url = new URL(request.url ?? "/", "http://stub");
    const letter = url.pathname.endsWith("/search.php") ? (url.searchParams.get("f") ?? "") : "";
    const { status, body } = letter ? answer(letter) : { status: 404, body: "{}" };
    response.writeHead(status, { "Content-Type": "application/json" });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/json/v1/1`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Serves seed/fixtures/mealdb/<letter>.json, and `{meals: null}` for other letters, as TheMealDB does. */
export function fixtureAnswer(letter: string): { status: number; body: string } {
  const file = path.join(FIXTURES, "mealdb", `${letter}.json`);
  return { status: 200, body: fs.existsSync(file) ? fs.readFileSync(file, "utf8") : JSON.stringify({ meals: null }) };
}

/** Collects log lines instead of printing them. */
export function captureLog(): { lines: string[]; log: (line: string) => void } {
  const lines: string[] = [];
  return { lines, log: (line) => lines.push(line) };
}
