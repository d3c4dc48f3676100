// Preloaded into the service by bench/soak.js (with --expose-gc): SIGUSR2 runs a full garbage
// collection, so the soak compares the memory the service keeps rather than the point of its
// collection cycle that a sample happens to hit (RSS swings by 10-20 % at full load).
process.on('SIGUSR2', () => {
  global.gc();
  global.gc();
});
