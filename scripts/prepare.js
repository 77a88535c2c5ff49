// Migrates and seeds (unless --migrate-only), in a process of its own before the server starts.
// `--scale [N]` (npm run seed -- --scale N) then adds the synthetic scale data: N users, default 10,000.
// The seeder is not part of the app's build (the app never imports seed/): it is bundled here
// from its TypeScript, with the app's modules it uses; loading db/connection.server migrates the database.
import { loadModule } from "./load-module.js";
import { redactUrl } from "./redact-url.js";

const seed = await loadModule(
  "prepare",
  `
    export { closeDatabaseHandle, db } from "~/server/db/connection.server";
    export { env } from "~/server/env.server";
    export { seedDatabase, seedUserPasswordsFor } from "./seed/index";
    export { seedPhotoModeOf } from "./seed/photos";
    export { scaleSeed } from "./seed/scale";
  `,
).catch(cannotStart);
const { db, env } = seed;

/**
 * A start that cannot go on (a setting that is wrong, a database that cannot be reached) ends
 * with one line that says why, and exit code 1 — never a stack trace, never a silent fallback.
 * @param {Error} error What loading the seeder and the app's modules failed with.
 * @returns {never}
 */
function cannotStart(error) {
  const known = error?.name === "DatabaseUnavailableError" || /^Invalid environment:/.test(error?.message ?? "");
  if (!known) throw error;
  const where = process.env.DATABASE_URL ? ` (DATABASE_URL ${redactUrl(process.env.DATABASE_URL)})` : "";
  console.error(`ReciPals cannot start: ${error.message}${error.name === "DatabaseUnavailableError" ? where : ""}`);
  process.exit(1);
}

if (!process.argv.includes("--migrate-only")) {
  const report = await seed.seedDatabase(db, {
    seedFile: env.RECIPALS_SEED_FILE,
    mealDbBaseUrl: env.MEALDB_BASE_URL,
    adminPassword: env.SEED_ADMIN_PASSWORD,
    userPasswords: seed.seedUserPasswordsFor(env),
    // Stored with the app's own image pipeline into the store this process shares with the server
    // (IMAGE_STORE, UPLOADS_DIR or `uploads` beside the database: the same settings, the same env).
    photos: seed.seedPhotoModeOf(process.env.RECIPALS_SEED_PHOTOS),
  });
  if (report.source !== "already-seeded") {
    console.log(
      `Seeded from ${report.source}: ${report.users} users, ${report.recipes} recipes, ${report.posts} posts, ${report.comments} comments.`,
    );
  }
}
const scaleAt = process.argv.indexOf("--scale");
if (scaleAt >= 0 && !process.argv.includes("--migrate-only") && env.DATABASE_URL) {
  console.error("ReciPals cannot start: --scale writes a SQLite file. Scale-seed SQLite, then move it with npm run db:copy -- --to postgres://…");
  process.exit(1);
}
if (scaleAt >= 0 && !process.argv.includes("--migrate-only")) {
  const value = process.argv[scaleAt + 1];
  const users = value && /^\d+$/.test(value) ? Number(value) : 10_000;
  const scale = await seed.scaleSeed(env.DATABASE_PATH, { users });
  if (!scale.skipped) {
    console.log(
      `Scale seed: ${scale.users} users, ${scale.recipes} recipes and posts, ${scale.follows} follows, ${scale.likes} likes, ` +
        `${scale.comments} comments in ${(scale.ms / 1000).toFixed(1)} s. Every scale user's password is ReciPals; ` +
        `${scale.heavyFollower} follows 200 people.`,
    );
  }
}
await seed.closeDatabaseHandle(db);
process.exit(0);
