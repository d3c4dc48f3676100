// An answer esbuild's process wrote before it died, read once a write to it was refused: esbuild
// 0.28.2's host has then failed every call of the process, and the answer belongs to none
// ("callback is not a function", thrown uncaught, which ended the program). The calls whose
// failure no build waits for (a kept context's dispose) must end the dead process's output too
// (README "When esbuild's process dies").
import { expect } from 'chai';
import * as esbuild from 'esbuild';
import { createContextPool } from '../../src/bundlers/context-pool.js';
import { allowRestarts, withLiveService } from '../../src/bundlers/esbuild-service.js';
import { esbuildChildren, esbuildSpawned } from '../helpers/esbuild-process.js';
import { waitFor } from '../helpers/wait-for.js';
import { tempWorkspace } from '../helpers/workspace.js';

/** The bytes of esbuild's ping, which its process sends now and then: `{ command: 'ping' }`. */
const PING_BYTES = 33;

/** Returns once process `pid`, a child of this one, has ended (a zombie, not yet reaped), in this very turn: no event of this process runs meanwhile. */
function endedNow(pid: number): void {
  const deadline = Date.now() + 60_000;
  while (esbuildChildren().some((child) => child.pid === pid && child.state !== 'Z')) {
    if (Date.now() > deadline) throw new Error(`esbuild's process ${pid} did not end`);
  }
}

describe("esbuild's process dying with an answer unread (README \"When esbuild's process dies\")", function () {
  this.timeout(120_000);
  beforeEach(() => allowRestarts());
  afterEach(() => allowRestarts());

  it("a kept context's dispose refused by the dead process ends its output: the answer to another context's rebuild is never read", async function () {
    if (process.platform !== 'linux') this.skip();
    const root = tempWorkspace({ 'a.ts': 'export const a = 1;\n', 'b.ts': 'export const b = 2;\n', 'c.ts': 'export const c = 3;\n' });
    const optionsOf = (entry: string) => (): esbuild.BuildOptions => ({ absWorkingDir: root, entryPoints: [entry], bundle: true, write: false, logLevel: 'silent' });
    const spawned = esbuildSpawned();
    const pool = createContextPool();
    try {
      // A process of this test's own, whose pipes it holds.
      await esbuild.stop();
      await withLiveService(() => pool.rebuild('a', 'a', optionsOf('a.ts')));
      // A dispose waits for the context's rebuild to wind down: b's, answered after a's, leaves a idle.
      await withLiveService(() => pool.rebuild('b', 'b', optionsOf('b.ts')));
      await pool.discard('b');
      // c's build is taken as esbuild ends it; its rebuild's answer follows, in a later turn.
      await withLiveService(() => pool.rebuild('c', 'c', optionsOf('c.ts')));
      const child = spawned.children.at(-1)!;
      // What the process writes from now on waits, unread, as it would behind a slow turn of this process.
      child.stdout!.pause();
      // Pings alone come in whole multiples of their size; an answer makes it none.
      await waitFor(() => child.stdout!.readableLength % PING_BYTES !== 0, { timeout: 60_000, what: "the answer to c's rebuild, written and unread" });
      // Killed, and a's dispose asked for, in one turn of this process: the refused write comes
      // before this process has learnt of the end, as under load.
      process.kill(child.pid!, 'SIGKILL');
      endedNow(child.pid!);
      await pool.discard('a');
      // This process learns of the end: Node reads what the process's output still holds.
      await waitFor(() => child.exitCode !== null || child.signalCode !== null, { timeout: 60_000, what: "this process to learn of the end of esbuild's" });
      await new Promise((resolve) => setImmediate(resolve));
      expect(child.stdout!.destroyed, "the dead process's output ended").to.equal(true);
      const rebuilt = await withLiveService(() => pool.rebuild('a', 'a', optionsOf('a.ts')));
      expect(rebuilt.errors, 'a build after it').to.deep.equal([]);
    } finally {
      spawned.restore();
      await pool.dispose();
    }
  });
});
