// The read-ahead worker of `core run` (src/io/read-ahead.ts), its thread started before the
// bundle loads: Node's own start of a worker thread (about 50 ms) then runs on the second core
// beside the bundle's load, not after it (ARCHITECTURE.md "Hashing on the second core"). It runs
// nothing of its own: its first message brings the code read-ahead.ts runs in it and the
// workspace's root. Left where read-ahead.ts takes it (the symbol below) while it lives; it keeps
// no process alive.
'use strict';
const { Worker } = require('node:worker_threads');

const EARLY_WORKER = Symbol.for('@core-js/packages/read-ahead-worker');
const BOOT = "require('node:worker_threads').parentPort.once('message', ({ body, root }) => new Function('require', 'root', body)(require, root));";

function startEarlyWorker() {
  let worker;
  try {
    worker = new Worker(BOOT, { eval: true });
  } catch {
    return; // read-ahead.ts starts its own, or reads on the main thread
  }
  worker.unref();
  const gone = () => {
    if (globalThis[EARLY_WORKER] === worker) delete globalThis[EARLY_WORKER];
  };
  worker.on('error', gone);
  worker.on('exit', gone);
  globalThis[EARLY_WORKER] = worker;
}

module.exports = { startEarlyWorker };
