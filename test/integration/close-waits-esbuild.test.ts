// `close()` ends every esbuild call the service made (README "The programmatic API"): besides the
// bundlers' builds, the local CDN's builds of installed packages and the bundled preview's joins.
// Left running past the close, such a build held esbuild's process, and esbuild stopped then (as
// the test run's end does) printed "all goroutines are asleep - deadlock!". Each build is held
// here by a FIFO esbuild opens as a package.json, until a writer releases it: the local CDN's
// watchdog does (after STUCK_BUILD_MS), and this test does for the join, which has none.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { esbuildCallsRunning } from '../../src/bundlers/calls-in-flight.js';
import { esbuildFifoWaits, STUCK_BUILD_MS } from '../../src/bundlers/non-regular-files.js';
import { write } from '../helpers/edit.js';
import { esbuildHolds } from '../helpers/esbuild-holds.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';

const json = (value: unknown) => JSON.stringify(value);

/** Until esbuild's process waits in the open of `fifo`. */
const esbuildWaitsOn = (fifo: string) =>
  waitFor(
    () => {
      const waits = esbuildFifoWaits();
      return waits === true || (typeof waits === 'object' && waits !== null && waits.paths.includes(fifo));
    },
    { what: `esbuild waiting in the open of ${fifo}` },
  );

/** Hands `text` and an end of file to a reader waiting on `fifo`; false when none waits there. */
function release(fifo: string, text: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/** The join directories of this process (README "The bundled preview": in /dev/shm or the temporary directory). */
function joinDirectories(): Set<string> {
  const found = new Set<string>();
  for (const base of ['/dev/shm', os.tmpdir()]) {
    const own = path.join(base, `core-join-${process.getuid?.() ?? os.userInfo().username}`);
    let names: string[] = [];
    try {
      names = fs.readdirSync(own);
    } catch {
      continue;
    }
    for (const name of names) if (name.startsWith(`${process.pid}-`)) found.add(path.join(own, name));
  }
  return found;
}

describe('close() while a one-off esbuild build runs', function () {
  this.timeout(60_000);

  it("waits for the local CDN's build of an installed package: closed, nothing holds esbuild's process", async function () {
    const root = fixtureWorkspace('basic', {
      'node_modules/held/package.json': json({ name: 'held', version: '1.0.0', type: 'module', main: 'index.js' }),
      'node_modules/held/index.js': "export { x } from './sub/index.js';\n",
      'node_modules/held/sub/index.js': 'export const x = 1;\n',
    });
    const fifo = path.join(fs.realpathSync(root), 'node_modules/held/sub/package.json');
    execFileSync('mkfifo', [fifo]);
    const held = esbuildHolds();
    const service = await serve(root, { cdnOrigin: 'local' });
    try {
      await service.report();
      // The build waits in the open of the FIFO until the CDN's watchdog releases it.
      void service.get('/cdn/held@1.0.0').catch(() => null);
      await esbuildWaitsOn(fifo);
      expect(esbuildCallsRunning(), 'the build named while it runs').to.include(`the local CDN's build of ${path.dirname(path.dirname(fifo))}/index.js`);
      await service.close();
      expect(esbuildHolds(), "esbuild's process held after close()").to.equal(held);
      expect(esbuildCallsRunning(), 'calls still running after close()').to.deep.equal([]);
    } finally {
      // A build left running (by a close that did not wait) is not the next test's.
      await waitFor(() => esbuildHolds() === held, { what: "the CDN's build ended" });
    }
  });

  it("waits for the bundled preview's join: closed, nothing holds esbuild's process", async function () {
    const root = fixtureWorkspace('basic');
    const held = esbuildHolds();
    const service = await serve(root);
    const before = joinDirectories();
    expect((await service.get('/preview/bundled/')).status).to.equal(200);
    const [dir] = [...joinDirectories()].filter((found) => !before.has(found));
    expect(dir, "this service's join directory").to.be.a('string');
    const fifo = path.join(dir!, 'package.json');
    execFileSync('mkfifo', [fifo]);
    let releaser: NodeJS.Timeout | undefined;
    try {
      // A bundled page asked for just now: the edit's state is joined ahead, and its join waits
      // in the open of the FIFO until released.
      write(root, 'packages/app/main/helper.ts', 'export const helper = () => "edited";\n');
      await esbuildWaitsOn(fifo);
      expect(esbuildCallsRunning(), 'the join named while it runs').to.include("the bundled page's join of @acme/app/main");
      const closed = service.close();
      // Released as the CDN's watchdog would release its own: a close that does not wait for
      // the join has resolved by then, the join still running.
      releaser = setTimeout(() => release(fifo, '{}'), STUCK_BUILD_MS);
      await closed;
      expect(esbuildHolds(), "esbuild's process held after close()").to.equal(held);
      expect(esbuildCallsRunning(), 'calls still running after close()').to.deep.equal([]);
    } finally {
      clearTimeout(releaser);
      // Never a join left waiting for the rest of the run.
      await waitFor(() => !fs.existsSync(fifo) || release(fifo, '{}') || esbuildFifoWaits() === false, { what: 'the join released' });
      await waitFor(() => esbuildHolds() === held, { what: 'the join ended' });
    }
  });
});
