// The service's own esbuild process, told from other children of this process that run a program
// named esbuild (an embedder's esbuild; tsx's loader runs one in these tests): the watchdog judges
// the service's alone, a close kills the service's alone (README "When esbuild's process dies"),
// and a process ended and not yet reaped is dead, not "cannot tell".
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import * as esbuild from 'esbuild';
import { allowRestarts, endedOrHungKilled, reviveService } from '../../src/bundlers/esbuild-service.js';
import { esbuildFifoWaits } from '../../src/bundlers/non-regular-files.js';
import { awaitsAtTopLevel } from '../../src/bundlers/top-level-await.js';
import { esbuildChild } from '../helpers/esbuild-process.js';
import { waitFor } from '../helpers/wait-for.js';
import { tempWorkspace } from '../helpers/workspace.js';

/** The kernel's state letter of a process (R, S, T, Z...), or null once it is reaped. */
function stateOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
  } catch {
    return null;
  }
}

/** Where a process's one thread sleeps (the kernel's name), or '' once it is gone. */
function sleepOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/wchan`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** Blocks this thread (no turn of the event loop, so Node reaps no child) until `pid` is a zombie. */
function untilZombie(pid: number): void {
  const bound = Date.now() + 60_000;
  while (stateOf(pid) !== 'Z') if (Date.now() > bound) throw new Error(`process ${pid} never became a zombie (state ${stateOf(pid)})`);
}

describe("the service's esbuild process, among other children named esbuild", function () {
  this.timeout(120_000);
  let dir: string;
  /** A program named esbuild that is not esbuild's: `/bin/<program>` by a link named esbuild. */
  let foreign: string;
  const children: ChildProcess[] = [];
  const foreignChild = (...args: string[]): ChildProcess => {
    const child = spawn(foreign, args, { stdio: 'ignore' });
    children.push(child);
    return child;
  };

  before(function () {
    if (process.platform !== 'linux') this.skip();
  });

  beforeEach(async function () {
    dir = tempWorkspace();
    foreign = path.join(dir, 'esbuild');
    // The service's process, started by one of the service's calls (a process started by a test's
    // own call of esbuild, before, would be the service's too, shared, but not seen starting): the
    // exchange that asks whether the process is gone starts one when none runs.
    await esbuild.stop();
    await reviveService();
    expect(esbuildChild(), "the service's process").to.not.equal(null);
  });

  afterEach(async function () {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
    }
    // A test that killed the service's process: a live one again, the restart not counted.
    await reviveService();
    allowRestarts();
  });

  it("is the only one the watchdog judges: a foreign child waiting in a FIFO's open is not told", async function () {
    fs.symlinkSync('/bin/cat', foreign);
    const fifo = path.join(dir, 'feed');
    execFileSync('mkfifo', [fifo]);
    const reader = foreignChild(fifo);
    await waitFor(() => ['fifo_open', 'wait_for_partner'].includes(sleepOf(reader.pid!)), { timeout: 60_000, what: "the foreign child waiting in the FIFO's open" });
    expect(esbuildFifoWaits()).to.equal(false);
  });

  it('is the only one the watchdog judges: a foreign child ended and not yet reaped does not make it search', function () {
    fs.symlinkSync('/bin/true', foreign);
    const ended = foreignChild();
    // Judged before this thread gives Node a turn to reap it.
    untilZombie(ended.pid!);
    expect(esbuildFifoWaits()).to.equal(false);
  });

  it('ended and not yet reaped, waits on no FIFO: the watchdog does not search', function () {
    const pid = esbuildChild()!;
    process.kill(pid, 'SIGKILL');
    untilZombie(pid);
    expect(esbuildFifoWaits()).to.equal(false);
  });

  it("is the only one a close kills when it hangs: a foreign child lives on", async function () {
    fs.symlinkSync('/bin/sleep', foreign);
    const other = foreignChild('1000');
    const pid = esbuildChild()!;
    process.kill(pid, 'SIGSTOP');
    try {
      // A call the stopped process never answers: the close asks, then kills the process.
      await endedOrHungKilled(awaitsAtTopLevel('await 2;\n'));
      expect(stateOf(pid), "the service's hung process").to.be.oneOf([null, 'Z']);
      expect(stateOf(other.pid!), 'the foreign child').to.equal('S');
    } finally {
      if (stateOf(pid) === 'T') process.kill(pid, 'SIGKILL');
    }
  });
});
