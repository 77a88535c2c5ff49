// Migrates and seeds (unless --migrate-only), in a process of its own before the server starts.
// `--scale [N]` (npm run seed -- --scale N) then adds the synthetic scale data: N users, default 10,000.
// The seeder is not part of the app's build (the app never imports seed/): it is bundled here
// from its TypeScript, with the app's modules it uses; loading db.server migrates the database.
import { loadModule } from "./load-module.js";

const seed = await loadModule(
  "prepare",
  `
    export { db } from "~/server/db.server";
    export { env } from "~/server/env.server";
    export { seedDatabase } from "./seed/index";
    export { scaleSeed } from "./seed/scale";
  `,
);
const { db, env } = seed;
if (!process.argv.includes("--migrate-only")) {
  const report = await seed.seedDatabase(db, {
    seedFile: env.RECIPALS_SEED_FILE,
    mealDbBaseUrl: env.MEALDB_BASE_URL,
    adminPassword: env.SEED_ADMIN_PASSWORD,
  });
  if (report.source !== "already-seeded") {
    console.log(
      `Seeded from ${report.source}: ${report.users} users, ${report.recipes} recipes, ${report.posts} posts, ${report.comments} comments.`,
    );
  }
}
const scaleAt = process.argv.indexOf("--scale");
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
await db.destroy();
process.exit(0);
