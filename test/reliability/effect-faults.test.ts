// Fault injection: each effect of the service is given a dependency that throws, once or
// always. The failure is an `effect.failed` event in the log, the effect restarts, and the
// service keeps answering; a fault repeated past the bound is listed on /state.
import { expect } from 'chai';
import { Observable } from 'rxjs';
import type { EffectDeps } from '../../src/service.js';
import type { CoreEvent } from '../../src/store/events.js';
import { EFFECT_FAILURE_BOUND, type Report } from '../../src/store/selectors.js';
import { esbuildHolds } from '../helpers/esbuild-holds.js';
import { fixtureWorkspace, DEV } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { edit } from '../helpers/edit.js';

/** `fn`, throwing `INJECTED <name>` on its first `times` calls. */
function throwing<A extends unknown[], R>(name: string, fn: (...args: A) => R, times = 1): (...args: A) => R {
  let calls = 0;
  return (...args) => {
    calls += 1;
    if (calls <= times) throw new Error(`INJECTED ${name}`);
    return fn(...args);
  };
}

/** The services a test started, closed after it. */
const opened: Awaited<ReturnType<typeof serve>>[] = [];

async function served(effectDeps: (deps: EffectDeps) => EffectDeps, options: { watch?: boolean } = {}) {
  const reported: string[] = [];
  const root = fixtureWorkspace('basic');
  const service = await serve(root, { effectDeps, logger: (line) => void reported.push(line), ...options });
  opened.push(service);
  const failures = () =>
    service.internals.log.events().filter((event): event is Extract<CoreEvent, { type: 'effect.failed' }> => event.type === 'effect.failed');
  return { service, root, reported, failures };
}

/** The service answers: /state with every module valid, and a module's code. */
async function answers(service: Awaited<ReturnType<typeof served>>['service']) {
  const state = await service.get('/state');
  expect(state.status).to.equal(200);
  const report = JSON.parse(state.text) as Report;
  expect(report.modules.map((module) => [module.specifier, module.status]).filter(([, status]) => status !== 'valid')).to.deep.equal([]);
  expect((await service.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`)).status).to.equal(200);
  return report;
}

describe('effect faults', () => {
  // Each test's service ran on to the end of the run, its esbuild contexts alive with it: closed
  // after its test, it holds esbuild's process no more (README "The event log, replay and state
  // subscription": `close()`).
  let held: number;
  beforeEach(() => void (held = esbuildHolds()));
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((service) => service.close()));
    expect(esbuildHolds(), "esbuild's process held after the service closed").to.equal(held);
  });

  it('manifests: a read of the workspace that throws is reported, and the workspace is read again', async () => {
    const { service, failures, reported } = await served((deps) => ({ ...deps, readWorkspace: throwing('readWorkspace', deps.readWorkspace) }));
    await answers(service);
    expect(failures().map((event) => [event.effect, event.message, event.failures])).to.deep.equal([['manifests', 'INJECTED readWorkspace', 1]]);
    expect(reported.join('\n')).to.include('the manifests effect failed: INJECTED readWorkspace');
    const log = await service.get('/log');
    expect(log.text.split('\n').filter((line) => line.includes('"effect.failed"'))).to.have.length(1);
  });

  it('builds: a build runner that throws is reported, and the builds run again', async () => {
    const { service, failures } = await served((deps) => ({ ...deps, run: throwing('run', deps.run) }));
    await answers(service);
    expect(failures().map((event) => [event.effect, event.message])).to.deep.equal([['builds', 'INJECTED run']]);
  });

  it('builds: a build whose results fail after it started is cancelled and built again', async () => {
    let failed = false;
    const { service, failures } = await served((deps) => ({
      ...deps,
      run: (job) =>
        failed
          ? deps.run(job)
          : new Observable((subscriber) => {
              failed = true;
              // Later, from a timer: not on the stack of the effect.
              const timer = setTimeout(() => subscriber.error(new Error('INJECTED late build failure')), 10);
              return () => clearTimeout(timer);
            }),
    }));
    await answers(service);
    expect(failures().map((event) => event.effect)).to.deep.equal(['builds']);
    const cancelled = service.internals.log.events().filter((event) => event.type === 'build.cancelled');
    expect(cancelled).to.have.length.above(0);
  });

  it('watch: a hash that throws inside the watcher flush is reported, and the watcher starts again', async () => {
    const { service, root, failures } = await served((deps) => ({ ...deps, hashes: { ...deps.hashes, hash: throwing('hash', deps.hashes.hash) } }));
    await answers(service);
    await waitFor(() => failures().length > 0, { what: 'effect.failed of the watcher' });
    expect(failures().map((event) => [event.effect, event.message])).to.deep.equal([['watch', 'INJECTED hash']]);
    // The restarted watcher still pushes changes.
    edit(root, 'packages/app/main/styles.css', (text) => text.replace('rgb(1, 2, 3)', 'rgb(3, 2, 1)'));
    await waitFor(
      () => service.internals.log.events().some((event) => event.type === 'files.changed' && event.source === 'watcher' && 'packages/app/main/styles.css' in event.files),
      { what: 'the restarted watcher reporting the edit' },
    );
    expect((await service.get(`/m/@acme/app@1.0.0/styles/main?${DEV}`)).text).to.include('rgb(3, 2, 1)');
    await answers(service);
  });

  it('outputs: a cache upkeep that throws is reported, and the service keeps serving', async () => {
    const { service, failures } = await served((deps) => ({ ...deps, outputsGcPeriodMs: 1, outputs: { ...deps.outputs, retain: throwing('retain', deps.outputs.retain.bind(deps.outputs)) } }));
    await answers(service);
    await waitFor(() => failures().length > 0, { what: 'effect.failed of the output upkeep' });
    expect(failures().map((event) => [event.effect, event.message])).to.deep.equal([['outputs', 'INJECTED retain']]);
    await answers(service);
  });

  it('record: a log that cannot be opened fails every time; past the bound /state lists it, and the service answers', async function () {
    this.timeout(60_000);
    const { service, failures, reported } = await served((deps) => ({ ...deps, recordFile: '/' }));
    await waitFor(() => failures().length >= EFFECT_FAILURE_BOUND, { timeout: 30_000, what: `${EFFECT_FAILURE_BOUND} failures of the recording` });
    const report = await answers(service);
    const faults = report.diagnostics.filter((diagnostic) => diagnostic.kind === 'EFFECT_FAILED');
    expect(faults).to.have.length(1);
    expect(faults[0]!.message).to.include('the record effect failed');
    // Back-off: each restart waits longer than the one before.
    const delays = failures().map((event) => event.retryInMs);
    expect(delays.slice(0, 3)).to.deep.equal([100, 200, 400]);
    expect(reported.some((line) => line.includes('/state lists it'))).to.equal(true);
  });
});
