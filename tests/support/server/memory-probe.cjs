// Preloaded into a server under test (`node --expose-gc --require …/memory-probe.cjs`): on SIGUSR2
// it runs full garbage collections and prints its memory use, so a load test can compare the live
// heap after GC between phases instead of guessing from RSS (V8 grows lazily and keeps pages).
process.on("SIGUSR2", () => {
  if (typeof global.gc === "function") {
    global.gc();
    global.gc();
  }
  const m = process.memoryUsage();
  process.stdout.write(`MEMORY ${JSON.stringify({ heapUsed: m.heapUsed, rss: m.rss, external: m.external, arrayBuffers: m.arrayBuffers })}\n`);
});
