// At most `limit` tasks at once in this process, the others waiting their turn: for work that
// holds much memory while it runs (an imported page and its photo, a decoded picture).

/** A gate for `limit` tasks at once; `running` and `waiting` say how busy it is. */
export function concurrencyGate(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  async function gated<T>(run: () => Promise<T>): Promise<T> {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await run();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  }
  return Object.defineProperties(gated, {
    running: { get: () => running },
    waiting: { get: () => waiting.length },
  }) as typeof gated & { readonly running: number; readonly waiting: number };
}
