// npm run images:variants: gives every stored photo the copies it lacks. A photo is stored as its
// main file `<sha256>.webp` with copies beside it (the card and the narrower widths that pages name
// in `srcset`, app/lib/photos.ts, the placeholder, and the AVIF twin of each, which pages offer
// first); photos stored before those copies existed lack them, so browsers fetch the full 800 px
// picture where a narrow one would do, or find no AVIF copy. This walks the store
// the app is configured with (the uploads folder by default, the bucket when IMAGE_STORE=s3), and
// makes each missing copy from the stored main file with the app's own image pipeline, so the
// copies come out exactly as a fresh upload's would. The app's modules are loaded from their
// TypeScript by load-module.js, as images:copy does.
//
// It can be stopped and run again at any time: a photo that already has all its copies is skipped,
// and a copy is written whole or not at all (the disk store renames a finished file into place; an
// S3 upload appears only once complete), so a second run finishes exactly what the first left.
// Copies whose main file is gone are left alone: the orphan sweep decides about those, not this.
import fs from "node:fs";
import { pathToFileURL } from "node:url";

import { loadModule } from "./load-module.js";

const NAME = "images:variants";
/**
 * Photos worked on at once: a few, so that reading and writing one overlaps with decoding another,
 * but not more, since each decoded photo holds several MB and the app's decode gate allows 4.
 */
const PARALLEL = 3;
/** Characters of the progress bar between its brackets. */
const BAR_WIDTH = 20;

/**
 * What this script uses of the app.
 * @typedef {typeof import("~/server/media/storage.server")
 *   & Pick<typeof import("~/server/media/images.server"), "makeMissingCopies">} App
 * @typedef {import("~/server/media/storage.server").PhotoCopy} PhotoCopy
 */

/**
 * Where progress goes: stderr, or a test's stand-in.
 * @typedef {{ isTTY?: boolean, write(text: string): unknown }} ProgressSink
 */

/**
 * One clear line and exit 1.
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  console.error(`${NAME}: ${message}`);
  process.exit(1);
}

/**
 * `images:variants [#########...........] 45% 90/200 photos`. The percentage is rounded down, so
 * 100% means every photo is done rather than almost.
 * @param {number} done
 * @param {number} total
 * @returns {string}
 */
export function progressLine(done, total) {
  const fraction = total === 0 ? 1 : Math.min(1, done / total);
  const filled = Math.floor(fraction * BAR_WIDTH);
  const bar = "#".repeat(filled) + ".".repeat(BAR_WIDTH - filled);
  return `${NAME} [${bar}] ${Math.floor(fraction * 100)}% ${done}/${total} photos`;
}

/**
 * Shows progress on `sink`. A terminal gets one line redrawn in place (carriage return, then
 * "erase to the end of the line" for when the line got shorter). Anything else (a log file, CI, a
 * pipe) would keep every redraw as garbage, so it gets a plain line each time another tenth is done.
 * @param {number} total Photos in all.
 * @param {ProgressSink} sink
 * @returns {{ update(done: number): void, end(): void }}
 */
export function progressReporter(total, sink) {
  let lastTenth = -1;
  let onLine = false;
  return {
    update(done) {
      const line = progressLine(done, total);
      if (sink.isTTY) {
        sink.write(`\r${line}\x1b[K`);
        onLine = true;
        return;
      }
      const tenth = Math.floor((total === 0 ? 1 : Math.min(1, done / total)) * 10);
      if (tenth > lastTenth) {
        lastTenth = tenth;
        sink.write(`${line}\n`);
      }
    },
    // Leaves the terminal's cursor on a fresh line, so what is printed next is not glued to the bar.
    end() {
      if (onLine) sink.write("\n");
      onLine = false;
    },
  };
}

/**
 * @param {number} count
 * @param {string} one
 * @param {string} many
 * @returns {string}
 */
function counted(count, one, many) {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * Sorts the store's files by photo: which copies each main file has, and how many copies have no
 * main file at all.
 * @param {App} app
 * @param {{ name: string }[]} files
 * @returns {{ photos: { hash: string, missing: PhotoCopy[] }[], orphanCopies: number }}
 */
function groupByPhoto(app, files) {
  /** @type {Map<string, { main: boolean, copies: Set<PhotoCopy> }>} */
  const byHash = new Map();
  for (const { name } of files) {
    const parsed = app.parseStoredName(name);
    if (!parsed) continue;
    let entry = byHash.get(parsed.hash);
    if (!entry) {
      entry = { main: false, copies: new Set() };
      byHash.set(parsed.hash, entry);
    }
    if (parsed.copy === null) entry.main = true;
    else entry.copies.add(parsed.copy);
  }
  /** @type {{ hash: string, missing: PhotoCopy[] }[]} */
  const photos = [];
  let orphanCopies = 0;
  // Sorted, so that runs over the same store go through it in the same order.
  for (const hash of [...byHash.keys()].sort()) {
    const entry = /** @type {{ main: boolean, copies: Set<PhotoCopy> }} */ (byHash.get(hash));
    if (!entry.main) orphanCopies += entry.copies.size;
    else photos.push({ hash, missing: app.PHOTO_COPIES.filter((copy) => !entry.copies.has(copy)) });
  }
  return { photos, orphanCopies };
}

async function main() {
  if (process.argv.length > 2) fail(`takes no arguments (usage: npm run ${NAME}; IMAGE_STORE and S3_* choose the store)`);

  /** @type {App} */
  let app;
  try {
    app = await loadModule(
      "images-variants",
      `export * from "~/server/media/storage.server"; export { makeMissingCopies } from "~/server/media/images.server";`,
    );
  } catch (error) {
    // env.server.ts checks the settings when it loads: an S3 store without its bucket or keys stops here.
    fail(error instanceof Error ? error.message : String(error));
  }

  const where = app.imageStoreLabel();
  /** @type {{ name: string }[]} */
  let files;
  try {
    // The check first: a bucket that is not there is said so, rather than as a failed listing.
    await app.checkImageStore();
    files = await app.listStoredFiles();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The S3 store's errors already say where; a disk error (say, EACCES) is Node's own words.
    fail(error instanceof app.StoreUnavailableError ? message : `cannot list the files of ${where}: ${message}`);
  }

  const { photos, orphanCopies } = groupByPhoto(app, files);
  const todo = photos.filter((photo) => photo.missing.length > 0);
  const complete = photos.length - todo.length;

  let given = 0;
  let copiesMade = 0;
  /** Photos whose main file went away between the listing and their turn (removed by the sweep meanwhile). */
  let gone = 0;
  /** @type {string[]} */
  const failures = [];
  /**
   * The store's error once it stops answering (the workers stop at the first one).
   * @type {Error[]}
   */
  const storeDown = [];

  // The bar counts every photo, complete ones as done from the start: a resumed run shows how far
  // the whole store is, not only this run's share.
  const progress = progressReporter(photos.length, process.stderr);
  let done = complete;
  if (todo.length > 0) progress.update(done);

  // Ctrl-C: nothing is left half-written (see the top), but the terminal's line is left mid-bar.
  process.once("SIGINT", () => {
    progress.end();
    console.error(`${NAME}: stopped after giving ${counted(given, "photo", "photos")} their copies; run it again to finish the rest.`);
    process.exit(130);
  });

  let next = 0;
  /** @returns {Promise<void>} */
  async function worker() {
    while (next < todo.length && storeDown.length === 0) {
      const photo = /** @type {{ hash: string, missing: PhotoCopy[] }} */ (todo[next]); // next < todo.length
      next += 1;
      try {
        const made = await app.makeMissingCopies(photo.hash, photo.missing);
        if (made.size === 0) gone += 1;
        else {
          given += 1;
          copiesMade += made.size;
        }
      } catch (error) {
        // A store that stopped answering fails every photo after it: stop rather than go through
        // them all. Anything else (a main file sharp cannot decode) is this photo's alone.
        if (error instanceof app.StoreUnavailableError) {
          storeDown.push(error);
          return;
        }
        failures.push(`${photo.hash}.webp: ${error instanceof Error ? error.message : String(error)}`);
      }
      done += 1;
      progress.update(done);
    }
  }
  await Promise.all(Array.from({ length: Math.min(PARALLEL, todo.length) }, worker));
  progress.end();

  if (storeDown[0]) {
    fail(`${storeDown[0].message} (${counted(given, "photo", "photos")} given their copies before it stopped; run it again to go on)`);
  }

  let summary = `${NAME}: ${counted(photos.length, "photo", "photos")} in ${where}, ${given} given ${counted(copiesMade, "copy", "copies")}, ${complete} already complete`;
  if (gone > 0) summary += `, ${gone} gone meanwhile`;
  if (failures.length > 0) summary += `, ${failures.length} failed`;
  if (orphanCopies > 0) summary += `; ${counted(orphanCopies, "copy", "copies")} without a main photo left alone`;
  console.log(`${summary}.`);

  if (failures.length > 0) {
    const more = failures.length > 1 ? ` and ${failures.length - 1} more` : "";
    fail(`could not make the copies of ${failures[0]}${more}`);
  }
  // The S3 client keeps connections open for reuse: end now rather than wait for them to time out.
  process.exit(0);
}

/** True when Node was started on this file (`node scripts/images-variants.js`), not when a test imports it. */
function runAsCommand() {
  try {
    return Boolean(process.argv[1]) && import.meta.url === pathToFileURL(fs.realpathSync(/** @type {string} */ (process.argv[1]))).href;
  } catch {
    // argv[1] is not a file (node -e, a REPL): not this script.
    return false;
  }
}

if (runAsCommand()) await main();
