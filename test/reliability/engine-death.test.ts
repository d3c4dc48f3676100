// esbuild's process dying under the service (README "When esbuild's process dies"): killed while
// builds are in flight and while idle, the service starts a new one, builds again what the dead
// one left, settles with every module as it truly is, and its close settles.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { esbuildCallsRunning } from '../../src/bundlers/calls-in-flight.js';
import * as esbuild from 'esbuild';
import { allowRestarts, RESTARTS_IN_WINDOW, withLiveService } from '../../src/bundlers/esbuild-service.js';
import { esbuildChild, esbuildChildren, esbuildHeldAtStart, killEsbuild, killingEachEsbuild } from '../helpers/esbuild-process.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { serve, stopAll } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import type { Report } from '../../src/store/selectors.js';
import { quietTree, stateOf, type Served } from './support.js';

/** Waits until every module of `service` is settled (none pending or building), and returns the report. */
async function settled(service: Served) {
  return waitFor(
    async () => {
      const report = await stateOf(service);
      return report.modules.every((module) => module.status === 'valid' || module.status === 'invalid') ? report : undefined;
    },
    { timeout: 120_000, what: 'every module settled' },
  );
}

const statuses = (report: Awaited<ReturnType<typeof settled>>) => Object.fromEntries(report.modules.map((module) => [module.specifier, module.status]));

/** Closes `service`, failing if it does not settle in `limit` ms. */
async function closedWithin(service: Served, limit: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`close() did not settle in ${limit} ms; calls left: ${esbuildCallsRunning().join('; ')}`)), limit)));
  try {
    await Promise.race([service.close(), late]);
  } finally {
    clearTimeout(timer);
  }
}

const engineUnavailable = (module: Report['modules'][number]) => module.status === 'invalid' && module.diagnostics.some((diagnostic) => diagnostic.kind === 'ENGINE_UNAVAILABLE');

/** The production variants of `module`, one per platform: each a build of its own, asked for by address. */
const productionAddresses = (module: Report['modules'][number]): string[] =>
  module.platforms.map((platform) => `/m/${module.package}@${module.version}/modules/${module.subpath}?target=${platform === 'node' ? 'node' : 'browser'}&format=esm&env=production&min=true&sourcemap=none&types=false&css=false`);

describe("esbuild's process dying", function () {
  this.timeout(300_000);
  // Each test kills esbuild: the restarts it leaves counted are not the next test's.
  afterEach(async () => {
    await stopAll();
    allowRestarts();
  });

  it('is replaced when killed idle: an edit afterwards builds, every module valid, and the close settles', async function () {
    const root = fixtureWorkspace('basic');
    quietTree(root);
    const service = await serve(root);
    const before = statuses(await settled(service));
    expect(Object.values(before)).to.not.include('invalid');
    await killEsbuild();
    const helper = path.join(root, 'packages/app/main/helper.ts');
    fs.appendFileSync(helper, '\nexport const afterDeath = 1;\n');
    const after = await waitFor(
      async () => {
        const report = await settled(service);
        return report.modules.every((module) => module.status === 'valid') ? report : undefined;
      },
      { timeout: 120_000, what: 'every module valid after the edit' },
    );
    expect(statuses(after)).to.deep.equal(before);
    await closedWithin(service, 60_000);
    expect(esbuildCallsRunning()).to.deep.equal([]);
  });

  it('builds again by itself what was in flight when killed, every module valid, and the close settles', async function () {
    const root = fixtureWorkspace('basic');
    const service = await serve(root);
    const before = statuses(await settled(service));
    // Every module builds again; esbuild is killed while they do.
    for (const file of ['packages/app/main/helper.ts', 'packages/lib/format/internal/pad.ts', 'packages/app/main/styles.css']) fs.appendFileSync(path.join(root, file), '\n/* edited */\n');
    await waitFor(() => esbuildCallsRunning().length > 0, { timeout: 60_000, interval: 0, what: 'a build in flight' });
    await killEsbuild();
    const after = await waitFor(
      async () => {
        const report = await settled(service);
        return report.modules.every((module) => module.status === 'valid') ? report : undefined;
      },
      { timeout: 120_000, what: 'every module valid again' },
    );
    expect(statuses(after)).to.deep.equal(before);
    await closedWithin(service, 60_000);
    expect(esbuildCallsRunning()).to.deep.equal([]);
  });

  // Past RESTARTS_IN_WINDOW new processes the engine is unavailable (README "When esbuild's
  // process dies"): each process is stopped as it starts and then killed, so none of its builds
  // ends. Every module fails ENGINE_UNAVAILABLE, no call starts a process, and one save builds
  // every module again, not only the saved file's.
  it('starts no esbuild process past the restarts until a save, and the save builds every module again', async function () {
    const root = fixtureWorkspace('basic');
    const service = await serve(root);
    const before = statuses(await settled(service));
    const held = esbuildHeldAtStart();
    const killer = killingEachEsbuild();
    try {
      // Every module builds again.
      for (const entry of ['app/main', 'app/templates', 'lib/format', 'lib/server', 'lib/widgets/badge']) fs.appendFileSync(path.join(root, 'packages', entry, 'index.ts'), '\n/* edited */\n');
      const unavailable = await waitFor(
        async () => {
          const report = await settled(service);
          return report.modules.every(engineUnavailable) ? report : undefined;
        },
        { timeout: 120_000, what: 'every module ENGINE_UNAVAILABLE' },
      );
      // Builds asked for by address, each of its own: one new process each until the restarts ran out.
      const addresses = unavailable.modules.flatMap(productionAddresses);
      let asked = 0;
      for (let spawned = -1; spawned !== held.started.length; asked++) {
        expect(asked, 'requests that each started a process').to.be.at.most(RESTARTS_IN_WINDOW);
        spawned = held.started.length;
        const answer = await service.get(addresses[asked]!);
        expect(answer.text, addresses[asked]).to.match(/ENGINE_UNAVAILABLE|esbuild's process died/);
      }
      const spawnedAtLimit = held.started.length;
      expect(spawnedAtLimit, 'processes started after the first death').to.be.within(1, 2 * RESTARTS_IN_WINDOW);
      // Past the limit: further builds fail at once, and start no process.
      expect(addresses.length, 'builds left to ask for').to.be.above(asked);
      for (const address of addresses.slice(asked)) {
        const answer = await service.get(address);
        expect(answer.text, address).to.match(/ENGINE_UNAVAILABLE|esbuild's process died/);
      }
      expect(held.started.length, 'processes started past the limit').to.equal(spawnedAtLimit);
      expect(esbuildChild(), "esbuild's process past the limit").to.equal(null);
    } finally {
      // The killer's last look first, then spawning as before: no process is left stopped.
      await killer.stop();
      held.restore();
    }
    expect(killer.killed.length, 'processes killed').to.be.at.least(RESTARTS_IN_WINDOW + 1);
    // One save lets esbuild start again: every module builds again.
    fs.appendFileSync(path.join(root, 'packages/app/main/helper.ts'), '\nexport const afterTheLoop = 1;\n');
    const after = await waitFor(
      async () => {
        const report = await settled(service);
        return report.modules.every((module) => module.status === 'valid') ? report : undefined;
      },
      { timeout: 120_000, what: 'every module valid after one save' },
    );
    expect(statuses(after)).to.deep.equal(before);
    expect(esbuildChild(), "esbuild's process after the save").to.not.equal(null);
    await closedWithin(service, 60_000);
  });

  // A process killed with answers written and unread, whose stdin then refuses a write of the
  // service's, made esbuild's host throw "callback is not a function" uncaught as it read them
  // (README "When esbuild's process dies"): mocha fails the test that runs when one is thrown.
  it('survives esbuild killed again and again under builds and calls in flight, up to the limit, without an uncaught error', async function () {
    for (let round = 0; round < 4; round++) {
      const root = fixtureWorkspace('basic');
      // From the first builds on: killed while they run too.
      const service = await serve(root);
      for (let death = 0; death <= 3 * RESTARTS_IN_WINDOW; death++) {
        for (const entry of ['app/main', 'app/templates', 'lib/format', 'lib/server', 'lib/widgets/badge']) fs.appendFileSync(path.join(root, 'packages', entry, 'index.ts'), '\n/* edited */\n');
        // The service's own esbuild calls, and one more through the place that counts deaths.
        const refused = await withLiveService(() => esbuild.transform('')).then(
          () => null,
          (error: Error) => error,
        );
        if (refused) break;
        // Killed at a moment that varies, within the builds the edits started or after them: no
        // moment is asserted on, the varied ones are what found the fault.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 200));
        await killEsbuild();
      }
      await closedWithin(service, 60_000);
      allowRestarts();
    }
  });

  // A stopped process (SIGSTOP) answers nothing: neither the builds in flight nor the disposes of
  // the close. The close asks it for one exchange, and kills it when unanswered.
  it('settles the close when esbuild hangs with builds in flight and contexts kept, killing the hung process', async function () {
    const root = fixtureWorkspace('basic');
    const service = await serve(root);
    await settled(service);
    // One process only: another, left stopped by an earlier test, would be taken for the service's.
    const processes = esbuildChildren().filter(({ state }) => state !== 'Z');
    expect(processes, "esbuild's processes").to.have.length(1);
    const pid = processes[0]!.pid;
    const edit = () => {
      for (const file of ['packages/app/main/helper.ts', 'packages/lib/format/internal/pad.ts']) fs.appendFileSync(path.join(root, file), '\n/* edited */\n');
    };
    try {
      // Rebuilt in contexts the service keeps, which its close disposes.
      edit();
      await waitFor(() => esbuildCallsRunning().length > 0, { timeout: 60_000, interval: 0, what: 'a build in flight' });
      await waitFor(() => esbuildCallsRunning().length === 0, { timeout: 60_000, what: 'the builds ended' });
      process.kill(pid, 'SIGSTOP');
      edit();
      await waitFor(() => esbuildCallsRunning().length > 0, { timeout: 60_000, what: 'a build in flight' });
      await closedWithin(service, 60_000);
      expect(esbuildCallsRunning()).to.deep.equal([]);
      expect(esbuildChild(), 'the hung process').to.not.equal(pid);
    } finally {
      // Without the kill, the process goes on, so that the run can end.
      if (esbuildChild() === pid) process.kill(pid, 'SIGCONT');
    }
  });
});
