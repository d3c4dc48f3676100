// Preloaded into the service by bench/soak.js (with --expose-gc): SIGUSR2 runs a full garbage
// collection, so the soak compares the memory the service keeps rather than the point of its
// collection cycle that a sample happens to hit (RSS swings by 10-20 % at full load).
// It then writes the heap in use to stderr (`soak-heap BYTES`): RSS keeps the pages the heap
// once grew to, the heap in use is what the service still holds.
process.on('SIGUSR2', () => {
  global.gc();
  global.gc();
  require('node:fs').writeSync(2, `soak-heap ${process.memoryUsage().heapUsed}\n`);
});
