import fs from "node:fs";
import path from "node:path";

import type { Browser, CDPSession, Page } from "@playwright/test";

// A slow phone's CPU for one page (docs/testing.md, "A slow phone without a busy core"): the
// page's main thread runs at a sixth of its speed.
//
// DevTools' throttle (Emulation.setCPUThrottlingRate) slows the thread by holding it in a busy loop
// for five sixths of the time: a slowed page burns a whole core even while it waits for the server
// (measured: 10 s of CPU in 10 s of an idle page). Where the machine allows it (root, with the
// kernel's cgroup v1 `cpu` controller mounted, as on the machines we test on), the kernel's CPU
// quota holds the thread instead: the same sixth of a core, and the rest stays free for the tests
// beside it. Elsewhere, DevTools' throttle. The hurried-clicks test prints which one a run used.

const CPU_CGROUPS = "/sys/fs/cgroup/cpu";
/** The quota's period: the thread runs at most a sixth of each 6 ms (a press's race with the page's start is hundreds of ms wide). */
const PERIOD_US = 6_000;

export type SlowCpuMechanism = "kernel CPU quota" | "DevTools throttle";

/** This worker's folder of CPU quotas (one group per slowed thread), or null where there is none. */
let quotaRoot: string | null | undefined;
function quotas(): string | null {
  if (quotaRoot !== undefined) return quotaRoot;
  // SLOW_CPU=devtools: DevTools' throttle even where the quota works (to compare the two).
  if (process.env.SLOW_CPU === "devtools") return (quotaRoot = null);
  const root = path.join(CPU_CGROUPS, `recipals-slow-${process.pid}`);
  try {
    // Folders a worker that was killed left behind (its threads are gone, so they are empty).
    for (const name of fs.readdirSync(CPU_CGROUPS)) {
      const pid = /^recipals-slow-(\d+)$/.exec(name)?.[1];
      if (!pid || fs.existsSync(`/proc/${pid}`)) continue;
      try {
        removeGroups(path.join(CPU_CGROUPS, name), true);
      } catch {
        // Still holding a thread (a browser that outlived its worker): left for a later sweep.
      }
    }
    fs.mkdirSync(root, { recursive: true });
    fs.accessSync(path.join(root, "tasks"), fs.constants.W_OK);
    quotaRoot = root;
    process.once("exit", () => {
      try {
        removeGroups(root, true);
      } catch {
        // Left for the next run's sweep: an empty group costs nothing.
      }
    });
  } catch {
    quotaRoot = null;
  }
  return quotaRoot;
}

/** Removes the groups whose threads have ended (all of them, and the folder, when `all`). */
function removeGroups(root: string, all = false): void {
  let left = 0;
  for (const name of fs.existsSync(root) ? fs.readdirSync(root, { withFileTypes: true }) : []) {
    if (!name.isDirectory()) continue;
    try {
      fs.rmdirSync(path.join(root, name.name));
    } catch {
      left++;
    }
  }
  if (all && left === 0) fs.rmdirSync(root);
}

async function rendererPids(cdp: CDPSession): Promise<number[]> {
  const { processInfo } = await cdp.send("SystemInfo.getProcessInfo");
  return processInfo.filter((process) => process.type === "renderer").map((process) => process.id);
}

/**
 * Slows `page` (call it before the page's first `goto`) `rate` times until its context closes.
 * With the kernel's quota, every renderer of the page's browser has its main thread slowed (a
 * worker's browser holds one test's pages at a time), and again after each navigation of the page,
 * in case the browser moved it to a new process.
 */
export async function slowCpu(page: Page, rate: number): Promise<SlowCpuMechanism> {
  const root = quotas();
  if (!root) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate });
    return "DevTools throttle";
  }
  removeGroups(root);
  const browser = page.context().browser() as Browser;
  const cdp = await browser.newBrowserCDPSession();
  const slowed = new Set<number>();
  const slowAll = async () => {
    for (const pid of await rendererPids(cdp)) {
      if (slowed.has(pid)) continue;
      slowed.add(pid);
      const group = path.join(root, String(pid));
      fs.mkdirSync(group, { recursive: true });
      fs.writeFileSync(path.join(group, "cpu.cfs_period_us"), String(PERIOD_US));
      fs.writeFileSync(path.join(group, "cpu.cfs_quota_us"), String(Math.round(PERIOD_US / rate)));
      // The process's id is its main thread's: only that thread goes in (as DevTools slows it alone).
      // A renderer that ended since it was listed has nothing to slow.
      try {
        fs.writeFileSync(path.join(group, "tasks"), String(pid));
      } catch {
        fs.rmdirSync(group);
      }
    }
  };
  await slowAll();
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) slowAll().catch(() => {});
  });
  page.context().once("close", () => {
    cdp.detach().catch(() => {});
  });
  return "kernel CPU quota";
}
