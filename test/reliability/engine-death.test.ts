// esbuild's process dying under the service (README "When esbuild's process dies"): killed while
// builds are in flight and while idle, the service starts a new one, builds again what the dead
// one left, settles with every module as it truly is, and its close settles.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { esbuildCallsRunning } from '../../src/bundlers/calls-in-flight.js';
import { allowRestarts } from '../../src/bundlers/esbuild-service.js';
import { esbuildChild, killEsbuild } from '../helpers/esbuild-process.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { serve, stopAll } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
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

  // A stopped process (SIGSTOP) answers nothing: neither the builds in flight nor the disposes of
  // the close. The close asks it for one exchange, and kills it when unanswered.
  it('settles the close when esbuild hangs with builds in flight and contexts kept, killing the hung process', async function () {
    const root = fixtureWorkspace('basic');
    const service = await serve(root);
    await settled(service);
    const pid = esbuildChild()!;
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
