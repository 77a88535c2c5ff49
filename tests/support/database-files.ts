import fs from "node:fs";
import path from "node:path";

// Which test files reach the database: the PostgreSQL run takes only those (a file of pure
// functions would run the same code twice; docs/testing.md). A file reaches it when its imports,
// followed through our own modules (relative paths and `~/`), lead to app/server/db/, and so does
// a file that names one of our scripts (`scripts/….js`, run in a child process that inherits the
// test's database) whose imports lead there. Read from the source text: an import the pattern
// misses would make a file look pure, so tests/unit/database-files.test.ts checks the split
// against files known to be on each side.

const IMPORT = /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|import\s+["']([^"']+)["']/g;
const SCRIPT = /["'`/]scripts\/([\w.-]+\.js)\b/g;
const EXTENSIONS = ["", ".ts", ".tsx", ".js", "/index.ts", "/index.tsx", "/index.js"];

function resolveImport(root: string, from: string, specifier: string): string | null {
  const base = specifier.startsWith("~/")
    ? path.join(root, "app", specifier.slice(2))
    : specifier.startsWith(".")
      ? path.resolve(path.dirname(from), specifier)
      : null;
  if (!base) return null;
  for (const candidate of [...EXTENSIONS.map((extension) => base + extension), base.replace(/\.js$/, ".ts")]) {
    if (fs.statSync(candidate, { throwIfNoEntry: false })?.isFile()) return candidate;
  }
  return null;
}

/** Whether `file` (absolute) imports, directly or through our modules, anything in app/server/db/. */
export function reachesDatabase(root: string, file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  if (file.startsWith(path.join(root, "app/server/db") + path.sep)) return true;
  const text = fs.readFileSync(file, "utf8");
  for (const match of text.matchAll(IMPORT)) {
    const imported = resolveImport(root, file, match[1] ?? match[2] ?? match[3] ?? "");
    if (imported && reachesDatabase(root, imported, seen)) return true;
  }
  for (const match of text.matchAll(SCRIPT)) {
    const script = path.join(root, "scripts", match[1]!);
    if (fs.existsSync(script) && reachesDatabase(root, script, seen)) return true;
  }
  return false;
}

/** The test files under `folders` (relative to root) that never reach the database. */
export function filesWithoutDatabase(root: string, folders: string[]): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.test\.tsx?$/.test(entry.name) && !reachesDatabase(root, full)) found.push(path.relative(root, full));
    }
  };
  for (const folder of folders) walk(path.join(root, folder));
  return found.sort();
}
