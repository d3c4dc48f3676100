// What a rebuild is told about the module's last build: the inputs and the code the service
// recorded, so that a bundler can prove its own last build is that one (README "Bundling real code").
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { firstValueFrom } from 'rxjs';
import type { Bundler, RebuildHint } from '../../src/bundlers/types.js';
import { createOutputCache } from '../../src/outputs/output-cache.js';
import type { EffectDeps } from '../../src/service.js';
import type { BuildJob } from '../../src/io/build-runner.js';
import { createBuildRunner } from '../../src/io/build-runner.js';
import { createFileHashes } from '../../src/io/file-hashes.js';
import { UNVERIFIED } from '../../src/store/events.js';
import { coarseStat } from '../helpers/coarse-stat.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { moduleModel } from '../helpers/models.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { quietTree } from '../reliability/support.js';
import { spyOnFileReads } from '../helpers/file-reads-spy.js';

describe('createBuildRunner', () => {
  it('tells an incremental rebuild the inputs that changed and the code hash of the last build', async () => {
    const root = tempWorkspace({ 'app/main/index.ts': 'export const a = 1;\n', 'app/main/theme.css': '.a { color: red; }\n' });
    const hints: (RebuildHint | undefined)[] = [];
    const bundler: Bundler = {
      bundle: async () => [],
      rebuild: async (target, _variant, _signal, since) => {
        hints.push(since);
        return { specifier: target.specifier, code: Buffer.from('export const a = 1;\n'), styles: null, inputs: ['app/main/index.ts', 'app/main/theme.css'], imports: [], errors: [] };
      },
      dispose: async () => {},
    };
    const hashes = createFileHashes(root);
    const run = createBuildRunner({ registry: { get: async () => bundler, dispose: async () => {} }, outputs: createOutputCache(), hashes });
    const recorded = { 'app/main/index.ts': hashes.hash('app/main/index.ts'), 'app/main/theme.css': 'an older content' };
    const job: BuildJob = {
      build: 2,
      variant: 'browser.development',
      bundler: { name: 'ts', specifier: '@core-js/packages/bundlers/ts' },
      incremental: true,
      modules: [{ module: moduleModel('main'), generation: 1, previousInputs: recorded, previousCode: 'CODE-OF-BUILD-1' }],
    };
    await firstValueFrom(run(job));
    // With the bytes of the changed file as the runner hashed them: the bundler need not read it again.
    expect(hints).to.deep.equal([{ inputs: ['app/main/index.ts', 'app/main/theme.css'], changed: ['app/main/theme.css'], code: 'CODE-OF-BUILD-1', contents: { 'app/main/theme.css': Buffer.from('.a { color: red; }\n') } }]);
  });

  it('records the tsconfig chain of the entry, read again only once one of its files changed', async () => {
    const root = tempWorkspace({
      'app/main/index.ts': 'export const a = 1;\n',
      'app/tsconfig.json': JSON.stringify({ extends: './base.json' }),
      'app/base.json': '{}',
      'app/other.json': '{}',
    });
    const bundler: Bundler = {
      bundle: async (targets) => targets.map((target) => ({ specifier: target.specifier, code: Buffer.from('export {};\n'), styles: null, inputs: ['app/main/index.ts'], imports: [], errors: [] })),
      rebuild: async () => {
        throw new Error('not asked');
      },
      dispose: async () => {},
    };
    // Long after the files were written: their stats are trusted, not racy.
    const hashes = createFileHashes(root, () => Date.now() + 60_000);
    const run = createBuildRunner({ registry: { get: async () => bundler, dispose: async () => {} }, outputs: createOutputCache(), hashes });
    const job = (build: number): BuildJob => ({ build, variant: 'browser.development', bundler: { name: 'ts', specifier: '@core-js/packages/bundlers/ts' }, incremental: false, modules: [{ module: moduleModel('main'), generation: build, previousInputs: null }] });
    const inputsOf = async (build: number) => Object.keys(((await firstValueFrom(run(job(build))))[0] as { inputs: Record<string, string> }).inputs);
    expect(await inputsOf(1)).to.include.members(['app/main/tsconfig.json', 'app/tsconfig.json', 'app/base.json']);
    // Config files and places are what the build depends on, never files it read (README "Shared files").
    const first = (await firstValueFrom(run(job(1))))[0] as { resolution?: string[] };
    expect(first.resolution).to.include.members(['app/main/tsconfig.json', 'app/tsconfig.json', 'app/base.json']).and.not.include('app/main/index.ts');
    const reads: string[] = [];
    const restore = spyOnFileReads((file) => reads.push(path.relative(root, file)));
    try {
      await inputsOf(2);
      expect(reads, 'an unchanged chain').to.deep.equal([]);
      fs.writeFileSync(path.join(root, 'app/base.json'), JSON.stringify({ extends: './other.json' }));
      expect(await inputsOf(3)).to.include.members(['app/tsconfig.json', 'app/base.json', 'app/other.json']);
      // A base that is missing is looked at again: once it appears, the chain is read anew.
      fs.writeFileSync(path.join(root, 'app/other.json'), JSON.stringify({ extends: './later.json' }));
      expect(await inputsOf(4)).to.not.include('app/later.json');
      fs.writeFileSync(path.join(root, 'app/later.json'), '{}');
      expect(await inputsOf(5)).to.include.members(['app/other.json', 'app/later.json']);
    } finally {
      restore();
    }
  });

  it('stats no tsconfig place the watcher vouches for after a build, and looks again at one it noticed', async () => {
    const root = tempWorkspace({ 'app/main/index.ts': 'export const a = 1;\n' });
    const { run, hashes, noticed, statsAfter } = watchedRunner(root, ['app/main/index.ts']);
    let previousInputs: Record<string, string | null> | null = null;
    const inputsOf = async (build: number) => (previousInputs = await inputsAfter(run, build, previousInputs));
    const places = ['app/main/tsconfig.json', 'app/tsconfig.json', 'tsconfig.json'];
    expect(await inputsOf(1)).to.include({ 'app/main/tsconfig.json': null, 'app/tsconfig.json': null, 'tsconfig.json': null });
    expect(await inputsOf(2)).to.include({ 'app/main/tsconfig.json': null, 'app/tsconfig.json': null, 'tsconfig.json': null });
    expect(places.filter((place) => statsAfter.has(place)), 'places stat\'ed again').to.deep.equal([]);
    // One appears, and the watcher names it: it is stamped again, and the build records it.
    fs.writeFileSync(path.join(root, 'app/tsconfig.json'), '{}');
    noticed.add('app/tsconfig.json');
    const inputs = await inputsOf(3);
    expect(inputs['app/tsconfig.json']).to.equal(hashes.hash('app/tsconfig.json')).and.to.be.a('string');
    expect(inputs).to.not.have.property('tsconfig.json');
  });

  it('takes a known input the watcher proves unwritten during the build without a stat; one written through another name is still caught', async () => {
    const root = tempWorkspace({ 'app/main/index.ts': 'export const a = 1;\n', 'app/main/util.ts': 'export const u = 1;\n' });
    const inputs = ['app/main/index.ts', 'app/main/util.ts'];
    const watched = watchedRunner(root, inputs);
    const { run, hashes, noticed, statsAfter } = watched;
    for (const input of inputs) hashes.stamp(input);
    const recorded = Object.fromEntries(inputs.map((input) => [input, hashes.hash(input)]));
    const build = () => inputsAfter(run, 2, recorded);
    expect(await build()).to.include(recorded);
    expect(inputs.filter((input) => statsAfter.has(input)), 'inputs stat\'ed after the build').to.deep.equal([]);
    // util.ts gets a second name, and is written through it during the build, back to the same
    // bytes (as a save that truncates first): the watcher of its own directory may say nothing.
    fs.linkSync(path.join(root, 'app/main/util.ts'), path.join(root, 'app/other-name.ts'));
    hashes.stamp('app/main/util.ts');
    watched.during = () => {
      fs.writeFileSync(path.join(root, 'app/other-name.ts'), '');
      fs.writeFileSync(path.join(root, 'app/other-name.ts'), 'export const u = 1;\n');
      const moved = new Date(Date.now() + 5_000);
      fs.utimesSync(path.join(root, 'app/other-name.ts'), moved, moved);
    };
    expect((await build())['app/main/util.ts']).to.equal(UNVERIFIED);
    // A write the watcher noticed during the build: stat'ed, and caught by its mtime.
    fs.unlinkSync(path.join(root, 'app/other-name.ts'));
    hashes.stamp('app/main/util.ts');
    recorded['app/main/util.ts'] = hashes.hash('app/main/util.ts');
    watched.during = () => {
      fs.writeFileSync(path.join(root, 'app/main/index.ts'), 'export const a = 1;\n');
      const moved = new Date(Date.now() + 9_000);
      fs.utimesSync(path.join(root, 'app/main/index.ts'), moved, moved);
      noticed.add('app/main/index.ts');
    };
    const inputs3 = await build();
    expect(inputs3['app/main/index.ts']).to.equal(UNVERIFIED);
    expect(inputs3['app/main/util.ts']).to.equal(recorded['app/main/util.ts']);
  });

  it('takes the watcher\'s word after the turn that brought the build\'s result: a notice read in that turn after the result still counts', async () => {
    const root = tempWorkspace({ 'app/main/index.ts': 'export const a = 1;\n' });
    const input = 'app/main/index.ts';
    const watched = watchedRunner(root, [input]);
    watched.hashes.stamp(input);
    const recorded = { [input]: watched.hashes.hash(input) };
    // Written while the build read it (same bytes, as a save that truncates first); the watcher's
    // notice of it is read later in the turn that reads the result.
    watched.during = () => {
      fs.writeFileSync(path.join(root, input), 'export const a = 1;\n');
      const moved = new Date(Date.now() + 7_000);
      fs.utimesSync(path.join(root, input), moved, moved);
      setImmediate(() => watched.noticed.add(input));
    };
    expect((await inputsAfter(watched.run, 2, recorded))[input]).to.equal(UNVERIFIED);
  });

  it('marks unverified an input first read by the build whose whole-second mtime falls within a second before the build began', async () => {
    const root = tempWorkspace({ 'app/main/index.ts': 'export const a = 1;\n' });
    const second = new Date('2020-01-01T00:00:00.000Z');
    // Saved at second + 0.7 s, during a build that began at second + 0.5 s: the file system says second.
    fs.utimesSync(path.join(root, 'app/main/index.ts'), second, second);
    const bundler: Bundler = {
      bundle: async (targets) => targets.map((target) => ({ specifier: target.specifier, code: Buffer.from('export {};\n'), styles: null, inputs: ['app/main/index.ts'], imports: [], errors: [] })),
      rebuild: async () => {
        throw new Error('not asked');
      },
      dispose: async () => {},
    };
    const clock = () => second.getTime() + 500;
    const run = createBuildRunner({ registry: { get: async () => bundler, dispose: async () => {} }, outputs: createOutputCache(), hashes: createFileHashes(root, clock, { stat: coarseStat }), now: clock });
    const job: BuildJob = { build: 1, variant: 'browser.development', bundler: { name: 'ts', specifier: '@core-js/packages/bundlers/ts' }, incremental: false, modules: [{ module: moduleModel('main'), generation: 1, previousInputs: null }] };
    const [fact] = await firstValueFrom(run(job));
    expect(fact).to.deep.include({ type: 'build.succeeded' });
    expect((fact as { inputs: Record<string, string> }).inputs['app/main/index.ts']).to.equal(UNVERIFIED);
  });

  it('stamps each path the results of one job name once, however many modules name it, and places their imports without another stat', async () => {
    const entry = "export {};\nimport '@t/lib';\n";
    const root = tempWorkspace({ 'app/shared.ts': 'export const s = 1;\n', 'app/one/index.ts': entry, 'app/two/index.ts': entry, 'app/three/index.ts': entry });
    const bundler: Bundler = {
      bundle: async (targets) => targets.map((target) => ({ specifier: target.specifier, code: Buffer.from('export {};\n'), styles: null, inputs: [target.entry, 'app/shared.ts'], imports: [{ specifier: '@t/lib', file: target.entry }], errors: [] })),
      rebuild: async () => {
        throw new Error('not asked');
      },
      dispose: async () => {},
    };
    const stats = new Map<string, number>();
    const stat = (absolute: string) => {
      const relative = path.relative(root, absolute);
      stats.set(relative, (stats.get(relative) ?? 0) + 1);
      return fs.statSync(absolute, { throwIfNoEntry: false });
    };
    // Long after the files were written: nothing read is racy or unverified.
    const later = () => Date.now() + 60_000;
    const hashes = createFileHashes(root, later, { stat });
    const run = createBuildRunner({ registry: { get: async () => bundler, dispose: async () => {} }, outputs: createOutputCache(), hashes, now: later });
    const modules = ['one', 'two', 'three'].map((subpath) => ({ module: moduleModel(subpath), generation: 1, previousInputs: null }));
    const facts = await firstValueFrom(run({ build: 1, variant: 'browser.development', bundler: { name: 'ts', specifier: '@core-js/packages/bundlers/ts' }, incremental: false, modules }));
    const shared = hashes.hash('app/shared.ts');
    for (const [index, fact] of facts.entries()) {
      const { inputs, imports } = fact as { inputs: Record<string, string | null>; imports: unknown[] };
      // Every module records the shared file and the tsconfig places above it (all absent here).
      expect(inputs).to.include({ 'app/shared.ts': shared, 'app/tsconfig.json': null, 'tsconfig.json': null });
      expect(imports).to.deep.equal([{ specifier: '@t/lib', file: modules[index]!.module.entry, line: 2, column: 8 }]);
    }
    stats.delete('app/shared.ts'); // and the stamp just above
    // The places every module shares, each looked at once for the three results.
    expect(stats.get('app/tsconfig.json')).to.equal(1);
    expect(stats.get('tsconfig.json')).to.equal(1);
    expect([...stats.values()].every((count) => count === 1), JSON.stringify(Object.fromEntries(stats))).to.equal(true);
  });

  it('calls a loaded bundler in the turn the job is subscribed in', async () => {
    const root = tempWorkspace({ 'app/main/index.ts': 'export const a = 1;\n' });
    const calls: string[] = [];
    const bundler: Bundler = {
      bundle: async (targets) => {
        calls.push('bundle');
        return targets.map((target) => ({ specifier: target.specifier, code: Buffer.from('export {};\n'), styles: null, inputs: ['app/main/index.ts'], imports: [], errors: [] }));
      },
      rebuild: async () => {
        throw new Error('not asked');
      },
      dispose: async () => {},
    };
    const run = createBuildRunner({ registry: { get: async () => bundler, loaded: () => bundler, dispose: async () => {} }, outputs: createOutputCache(), hashes: createFileHashes(root) });
    const job: BuildJob = { build: 1, variant: 'browser.development', bundler: { name: 'ts', specifier: '@core-js/packages/bundlers/ts' }, incremental: false, modules: [{ module: moduleModel('main'), generation: 1, previousInputs: null }] };
    const facts = firstValueFrom(run(job));
    expect(calls, 'called before this turn ends').to.deep.equal(['bundle']);
    expect((await facts).map((fact) => fact.type)).to.deep.equal(['build.succeeded']);
  });

  it('aborts the signal of a job unsubscribed while it builds, never of one that finished', async () => {
    const root = tempWorkspace({ 'app/main/index.ts': 'export const a = 1;\n' });
    const signals: AbortSignal[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const bundler: Bundler = {
      bundle: async (targets, _variant, signal) => {
        signals.push(signal!);
        if (signals.length === 2) await held;
        return targets.map((target) => ({ specifier: target.specifier, code: Buffer.from('export {};\n'), styles: null, inputs: ['app/main/index.ts'], imports: [], errors: [] }));
      },
      rebuild: async () => {
        throw new Error('not asked');
      },
      dispose: async () => {},
    };
    const run = createBuildRunner({ registry: { get: async () => bundler, dispose: async () => {} }, outputs: createOutputCache(), hashes: createFileHashes(root) });
    const job = (build: number): BuildJob => ({
      build,
      variant: 'browser.development',
      bundler: { name: 'ts', specifier: '@core-js/packages/bundlers/ts' },
      incremental: false,
      modules: [{ module: moduleModel('main'), generation: 1, previousInputs: null }],
    });
    const facts = await firstValueFrom(run(job(1)));
    expect(facts.map((fact) => fact.type)).to.deep.equal(['build.succeeded']);
    expect(signals[0]!.aborted, 'the finished job').to.equal(false);
    const running = run(job(2)).subscribe();
    await waitFor(() => signals.length === 2, { what: 'the second job to start' });
    running.unsubscribe();
    expect(signals[1]!.aborted, 'the job unsubscribed while it builds').to.equal(true);
    release();
  });
});

// A runner whose bundler reports `inputs` (after `during`, the writes made while it builds) and
// whose watcher has noticed only `noticed`; `statsAfter` counts the stats made once it answered.
function watchedRunner(root: string, inputs: string[]) {
  const statsAfter = new Map<string, number>();
  const noticed = new Set<string>();
  const watched = {
    during: () => {},
    noticed,
    statsAfter,
    hashes: createFileHashes(root, () => Date.now() + 60_000, {
      stat: (absolute: string) => {
        const relative = path.relative(root, absolute);
        statsAfter.set(relative, (statsAfter.get(relative) ?? 0) + 1);
        return fs.statSync(absolute, { throwIfNoEntry: false });
      },
    }),
    run: undefined as unknown as ReturnType<typeof createBuildRunner>,
  };
  const bundler: Bundler = {
    bundle: async (targets) => {
      watched.during();
      statsAfter.clear();
      return targets.map((target) => ({ specifier: target.specifier, code: Buffer.from('export {};\n'), styles: null, inputs, imports: [], errors: [] }));
    },
    rebuild: async () => {
      throw new Error('not asked');
    },
    dispose: async () => {},
  };
  const quiet = () => ({ unchangedSince: (relative: string) => !noticed.has(relative), proofGeneration: () => noticed.size });
  watched.run = createBuildRunner({ registry: { get: async () => bundler, dispose: async () => {} }, outputs: createOutputCache(), hashes: watched.hashes, now: () => Date.now() + 60_000, quiet });
  return watched;
}

// The inputs recorded by a whole build of `main` that last built with `previousInputs`.
async function inputsAfter(run: ReturnType<typeof createBuildRunner>, build: number, previousInputs: Record<string, string | null> | null): Promise<Record<string, string | null>> {
  const job: BuildJob = { build, variant: 'browser.development', bundler: { name: 'ts', specifier: '@core-js/packages/bundlers/ts' }, incremental: false, modules: [{ module: moduleModel('main'), generation: build, previousInputs: previousInputs as never }] };
  return ((await firstValueFrom(run(job)))[0] as { inputs: Record<string, string | null> }).inputs;
}

describe('the builds effect', () => {
  it('passes the code hash of the module variant\'s last recorded build with its inputs', async () => {
    const root = fixtureWorkspace('basic');
    quietTree(root); // files older than a build's start: their hashes are recorded, not unverified
    const jobs: BuildJob[] = [];
    const service = await serve(root, { logger: () => {}, effectDeps: (deps: EffectDeps) => ({ ...deps, run: (job) => (jobs.push(job), deps.run(job)) }) });
    try {
      await service.get('/state');
      const recorded = service.internals.store.getState().builds['@acme/app/main']!.variants['browser.development']!.last!;
      const helper = path.join(root, 'packages/app/main/helper.ts');
      fs.appendFileSync(helper, '\nexport const ADDED = 1;\n');
      await waitFor(() => jobs.find((job) => job.incremental && job.modules[0]!.module.specifier === '@acme/app/main' && job.variant === 'browser.development'), { what: 'the rebuild of main' });
      const rebuild = jobs.find((job) => job.incremental && job.modules[0]!.module.specifier === '@acme/app/main' && job.variant === 'browser.development')!;
      expect(rebuild.modules[0]!.previousInputs).to.deep.equal(recorded.inputs);
      expect(rebuild.modules[0]!.previousCode).to.equal(recorded.outputs!.code.hash);
    } finally {
      await service.close();
    }
  });
});
