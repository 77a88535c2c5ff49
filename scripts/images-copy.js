// npm run images:copy [-- --from DIR]: copies every stored photo from the uploads folder on disk
// (`data/uploads` beside the database, or DIR) into the S3 store configured by IMAGE_STORE=s3 and
// the S3_* settings, before or while moving a site from disk to object storage. A file the bucket
// already holds is skipped (names are content hashes: same name, same bytes), so the copy can be
// run again at any time, and stopped and resumed. The app's own storage module does the S3 work
// (loaded from its TypeScript by load-module.js, as the prepare step loads the seeder).
import fs from "node:fs";
import path from "node:path";

import { loadModule } from "./load-module.js";

const USAGE = "usage: npm run images:copy [-- --from DIR]";
/** Files copied at once: enough to hide the round trips, few enough for a small store. */
const PARALLEL = 4;

/**
 * One clear line and exit 1.
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  console.error(`images:copy: ${message}`);
  process.exit(1);
}

/**
 * @param {string[]} argv
 * @returns {{ from: string | null | undefined }}
 */
function readArgs(argv) {
  /** @type {string | null | undefined} */
  let from = null;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = /** @type {string} */ (argv[i]); // i < argv.length
    if (arg === "--from") {
      from = argv[i + 1];
      i += 1;
      if (!from) fail(`--from needs a folder (${USAGE})`);
    } else if (arg.startsWith("--from=")) {
      from = arg.slice("--from=".length);
    } else {
      fail(`unknown argument ${JSON.stringify(arg)} (${USAGE})`);
    }
  }
  return { from };
}

const { from: fromArg } = readArgs(process.argv.slice(2));

/** @type {typeof import("~/server/media/storage.server")} */
let storage;
try {
  storage = await loadModule("images-copy", `export * from "~/server/media/storage.server";`);
} catch (error) {
  // env.server.ts checks the settings when it loads: an S3 store without its bucket or keys stops here.
  fail(error instanceof Error ? error.message : String(error));
}

if (storage.imageStoreKind() !== "s3") {
  fail("IMAGE_STORE is not s3: set IMAGE_STORE=s3 and the S3_* settings of the bucket to copy the photos into.");
}

const from = path.resolve(fromArg ?? storage.uploadsDir());
/** @type {string[]} */
let names;
try {
  names = fs.readdirSync(from).filter((name) => storage.isStoredName(name)).sort();
} catch (error) {
  // What readdirSync throws: a Node system error.
  const systemError = /** @type {NodeJS.ErrnoException} */ (error);
  fail(`cannot read the uploads folder ${from}: ${systemError.code ?? systemError.message}`);
}

const target = storage.imageStoreLabel();
try {
  await storage.checkImageStore();
} catch (error) {
  fail(/** @type {Error} */ (error).message);
}

console.log(`Copying ${names.length} stored files from ${from} to ${target}.`);
let copied = 0;
let already = 0;
let next = 0;

/**
 * @param {string} name A stored file's name.
 * @returns {Promise<"already there" | "copied">}
 */
async function copyOne(name) {
  if (await storage.storedFileExists(name)) {
    already += 1;
    return "already there";
  }
  await storage.writeStoredFile(name, fs.readFileSync(path.join(from, name)));
  copied += 1;
  return "copied";
}

/** @returns {Promise<void>} */
async function worker() {
  while (next < names.length) {
    const index = next;
    next += 1;
    const name = /** @type {string} */ (names[index]); // index < names.length
    const what = await copyOne(name);
    console.log(`[${copied + already}/${names.length}] ${what}: ${name}`);
  }
}

try {
  await Promise.all(Array.from({ length: Math.min(PARALLEL, names.length) }, worker));
} catch (error) {
  fail(`${/** @type {Error} */ (error).message} (${copied} copied before it stopped; run it again to go on)`);
}

console.log(`Done: ${copied} copied, ${already} already there, ${names.length} in total.`);
// The S3 client keeps connections open for reuse: end now rather than wait for them to time out.
process.exit(0);
