// esbuild's process dying under the service (it was seen to crash once, under load): the next
// build starts a new one, and a module edited afterwards builds again.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import * as esbuild from 'esbuild';
import { allowRestarts, ESBUILD_GOGC, ESBUILD_GOMEMLIMIT, measureRestartWindowBy, RESTART_WINDOW_MS, RESTARTS_IN_WINDOW, reviveService, withLiveService } from '../../src/bundlers/esbuild-service.js';
import { awaitsAtTopLevel } from '../../src/bundlers/top-level-await.js';
import { esbuildChild, esbuildChildren as liveEsbuildChildren, killEsbuild } from '../helpers/esbuild-process.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace, PROJECT_DIR, tempWorkspace } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';

/** The esbuild service processes started by this process's service, alive (not tsx's: test/helpers/esbuild-process.ts). */
const esbuildChildren = (): number[] => liveEsbuildChildren().flatMap(({ pid, state }) => (state === 'Z' ? [] : [pid]));

/** The GOGC and GOMEMLIMIT of a process's environment, as it was started. */
const goSettingsOf = (pid: number): string[] =>
  fs
    .readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .filter((entry) => /^GO(?:GC|MEMLIMIT)=/.test(entry))
    .sort();

/** A workspace of one package with one module, `value = 1`. */
function oneModuleWorkspace(): string {
  return inlineWorkspace({ 'packages/app': { manifest: { name: '@kit/app', version: '1.0.0', exports: { './main': './main.ts' } }, files: { 'main.ts': 'export const value = 1;\n' } } });
}

describe("esbuild's process dying", function () {
  it('is replaced by a new one: the next build succeeds, and so does the edit after it', async function () {
    const root = oneModuleWorkspace();
    const service = await serve(root);
    try {
      expect((await service.get('/m/@kit/app@1.0.0/modules/main')).text).to.include('value = 1');
      const before = esbuildChildren();
      expect(before, 'an esbuild service process to stop').to.not.be.empty;
      for (const pid of before) process.kill(pid, 'SIGKILL');
      await waitFor(() => esbuildChildren().every((pid) => !before.includes(pid)) || undefined, { what: 'the esbuild process to end' });
      fs.writeFileSync(path.join(root, 'packages/app/main.ts'), 'export const value = 2;\n');
      const answer = await service.get('/m/@kit/app@1.0.0/modules/main');
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.text).to.include('value = 2');
      expect((await service.get('/m/@kit/app@1.0.0/modules/main?env=production')).status).to.equal(200);
      if (process.platform === 'linux') {
        const after = esbuildChildren();
        expect(after, 'a new esbuild service process').to.not.be.empty;
        for (const pid of after) expect(goSettingsOf(pid), 'the new process is tuned alike').to.deep.equal([`GOGC=${ESBUILD_GOGC}`, `GOMEMLIMIT=${ESBUILD_GOMEMLIMIT}`]);
      }
    } finally {
      await service.close();
    }
  });
});

describe("withLiveService, when esbuild's process died (README \"When esbuild's process dies\")", function () {
  this.timeout(120_000);
  let root: string;
  const options = (): esbuild.BuildOptions => ({ absWorkingDir: root, entryPoints: ['index.ts'], bundle: true, write: false, logLevel: 'silent' });
  beforeEach(() => (root = tempWorkspace({ 'index.ts': 'export const value = 1;\n' })));
  // The window's clock stands still unless a test moves it: however slow the machine, its deaths fall within the window.
  let now = 0;
  let restoreClock: () => void = () => {};
  beforeEach(() => {
    allowRestarts();
    now = 0;
    restoreClock = measureRestartWindowBy(() => now);
  });
  afterEach(() => {
    restoreClock();
    allowRestarts();
  });

  // A context made by the dead process answers "no longer running" too: taken for the death of the
  // live process, it used to stop that one, whose builds in flight were then never answered.
  it("a context of the dead process, called once a new one runs, leaves the live process and its builds in flight alone", async function () {
    const stale = await withLiveService(() => esbuild.context(options()));
    await killEsbuild();
    expect((await withLiveService(() => esbuild.build(options()))).errors).to.deep.equal([]);
    const live = esbuildChild();
    const inFlight = withLiveService(() => esbuild.build(options()));
    const staleCall = await withLiveService(() => stale.rebuild()).then(
      () => null,
      (error: Error) => error,
    );
    expect(staleCall, 'the dead context fails').to.be.an('error');
    expect((await inFlight).errors, 'the build in flight').to.deep.equal([]);
    expect(esbuildChild(), 'the live process').to.equal(live);
  });

  it(`starts at most ${RESTARTS_IN_WINDOW} new processes in a row, then fails at once with EngineUnavailable until a file is saved`, async function () {
    for (let death = 1; death <= RESTARTS_IN_WINDOW; death++) {
      await withLiveService(() => esbuild.build(options()));
      await killEsbuild();
    }
    await withLiveService(() => esbuild.build(options()));
    await killEsbuild();
    const refused = await withLiveService(() => esbuild.build(options())).then(
      () => null,
      (error: Error) => error,
    );
    expect(refused?.name).to.equal('EngineUnavailable');
    expect(esbuildChild(), 'no new process').to.equal(null);
    const again = await withLiveService(() => esbuild.build(options())).catch((error: Error) => error);
    expect((again as Error).name, 'still refused, no process started').to.equal('EngineUnavailable');
    // A call that failed before the limit asks for a live process only now: none is started for it.
    await reviveService();
    expect(esbuildChild(), 'no process started for a late revive').to.equal(null);
    allowRestarts();
    expect((await withLiveService(() => esbuild.build(options()))).errors, 'after a save').to.deep.equal([]);
  });

  // The bundled preview's check of a top-level await calls esbuild outside any build: past the
  // restarts it started a process none counted, which a close then never killed when it hung.
  it('past the restarts, a call outside any build (the top-level await check) starts no process either, until a file is saved', async function () {
    for (let death = 1; death <= RESTARTS_IN_WINDOW + 1; death++) {
      await withLiveService(() => esbuild.build(options()));
      await killEsbuild();
    }
    const refused = await withLiveService(() => esbuild.build(options())).catch((error: Error) => error);
    expect((refused as Error).name).to.equal('EngineUnavailable');
    expect(await awaitsAtTopLevel('await 1;\n'), 'not told').to.equal(false);
    expect(esbuildChild(), 'no process started').to.equal(null);
    allowRestarts();
    expect(await awaitsAtTopLevel('await 1;\n'), 'after a save').to.equal(true);
  });

  it(`starts a new process again once the first of ${RESTARTS_IN_WINDOW} restarts is older than the window`, async function () {
    for (let death = 1; death <= RESTARTS_IN_WINDOW; death++) {
      await withLiveService(() => esbuild.build(options()));
      await killEsbuild();
    }
    await withLiveService(() => esbuild.build(options()));
    await killEsbuild();
    now += RESTART_WINDOW_MS + 1;
    expect((await withLiveService(() => esbuild.build(options()))).errors, 'built by a new process').to.deep.equal([]);
    expect(esbuildChild(), 'a new process').to.not.equal(null);
  });
});

describe("esbuild's process and Go's collector", function () {
  // The tests run without a GOGC or GOMEMLIMIT of their own.
  it('runs with GOGC=400 and a soft memory limit when the environment sets neither (README "Performance")', async function () {
    if (process.platform !== 'linux') this.skip();
    const root = oneModuleWorkspace();
    const service = await serve(root);
    try {
      expect((await service.get('/m/@kit/app@1.0.0/modules/main')).status).to.equal(200);
      const children = esbuildChildren();
      expect(children, 'an esbuild service process').to.not.be.empty;
      for (const pid of children) expect(goSettingsOf(pid)).to.deep.equal([`GOGC=${ESBUILD_GOGC}`, `GOMEMLIMIT=${ESBUILD_GOMEMLIMIT}`]);
      expect([process.env.GOGC, process.env.GOMEMLIMIT], "this process's own environment is left as it was").to.deep.equal([undefined, undefined]);
    } finally {
      await service.close();
    }
  });

  it("changes nothing of an embedder's environment, and leaves both alone when the user set either: the user's setting wins", function () {
    if (process.platform !== 'linux') this.skip();
    const module = JSON.stringify(pathToFileURL(path.join(PROJECT_DIR, 'dist/bundlers/esbuild-service.js')).href);
    // An embedder that imports the module, then has esbuild's process started: its own
    // environment before and after, and the one esbuild's process was started with.
    const script = [
      `const service = await import(${module});`,
      "const { execFileSync } = await import('node:child_process');",
      "const fs = await import('node:fs');",
      'const own = () => [process.env.GOGC ?? null, process.env.GOMEMLIMIT ?? null];',
      'const imported = own();',
      'service.startEsbuildEarly();',
      "const children = execFileSync('pgrep', ['-P', String(process.pid)], { encoding: 'utf8' }).split('\\n').filter(Boolean);",
      "const child = children.map((pid) => fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\\0').filter((entry) => /^GO(?:GC|MEMLIMIT)=/.test(entry)).sort());",
      'console.log(JSON.stringify({ imported, started: own(), child }));',
      'process.exit(0);',
    ].join('\n');
    const run = (env: Record<string, string>) => JSON.parse(execFileSync(process.execPath, ['--input-type=module', '--eval', script], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' }));
    expect(run({}), 'neither set').to.deep.equal({ imported: [null, null], started: [null, null], child: [[`GOGC=${ESBUILD_GOGC}`, `GOMEMLIMIT=${ESBUILD_GOMEMLIMIT}`]] });
    expect(run({ GOGC: '100' }), 'GOGC set').to.deep.equal({ imported: ['100', null], started: ['100', null], child: [['GOGC=100']] });
    expect(run({ GOMEMLIMIT: '2GiB' }), 'GOMEMLIMIT set').to.deep.equal({ imported: [null, '2GiB'], started: [null, '2GiB'], child: [['GOMEMLIMIT=2GiB']] });
  });
});
