import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

import type { FileStore, StoredFile } from "./store.server";

/**
 * Uploads in a folder (`dir()` is read at every call, so a test or tool may move it). A file's
 * age is its modification time.
 */
export function diskStore(dir: () => string, isStoredName: (name: string) => boolean): FileStore {
  const exists = async (name: string) => {
    try {
      await fs.access(path.join(dir(), name));
      return true;
    } catch {
      return false;
    }
  };

  return {
    // The bytes go to a temporary file first and are renamed into place, so a reader never sees half a file.
    async write(name, bytes) {
      const folder = dir();
      if (await exists(name)) return;
      await fs.mkdir(folder, { recursive: true });
      const temp = path.join(folder, `.${name}.${crypto.randomBytes(6).toString("hex")}.tmp`);
      await fs.writeFile(temp, bytes);
      await fs.rename(temp, path.join(folder, name));
    },

    async read(name) {
      try {
        return await fs.readFile(path.join(dir(), name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
      }
    },

    exists,

    async remove(name) {
      await fs.rm(path.join(dir(), name), { force: true });
    },

    async list() {
      const folder = dir();
      let names: string[];
      try {
        names = await fs.readdir(folder);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw error;
      }
      const files: StoredFile[] = [];
      for (const name of names) {
        if (!isStoredName(name)) continue;
        try {
          const stat = await fs.stat(path.join(folder, name));
          files.push({ name, modifiedMs: stat.mtimeMs });
        } catch {
          // Removed meanwhile: nothing to sweep.
        }
      }
      return files;
    },

    // The folder can be written (made here if it is not there yet, as the first write would).
    async check() {
      const folder = dir();
      try {
        await fs.mkdir(folder, { recursive: true });
        await fs.access(folder, fs.constants.W_OK);
      } catch (error) {
        throw new Error(`The uploads folder ${folder} cannot be written: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      }
    },

    close() {},
  };
}
