// Faults while serving (README "Workspaces", README "Addresses", README "The event log, replay and state subscription", README "Staying up"): manifests deleted, renamed
// or made unreadable, a package directory removed, a watcher that misses every event, and a
// recording server killed with SIGKILL. In every case the service keeps answering (never a
// 5xx), its `/state` is the report a service started afresh on the same tree gives, and
// once the tree is whole again everything is valid and served as before.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ERROR_CODES } from '../../src/codes.js';
import type { CoreEvent } from '../../src/store/events.js';
import { lastSession, parseLog, replay } from '../../src/store/replay.js';
import { selectReport, type Report } from '../../src/store/selectors.js';
import { CORE_BIN, killAllCores, runCore, startCore, type RunningCore } from '../helpers/cli.js';
import { edit, editJson, readText, remove, write } from '../helpers/edit.js';
import { TEST_FIXTURES_DIR, tempWorkspace } from '../helpers/workspace.js';
import { DEV, fixtureWorkspace, PROD } from '../helpers/fixtures.js';
import { get, type Answer } from '../helpers/http.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { defects, freshReport, moduleOf, outline, parseNdjson, stateOf, withSortedDiagnostics, type Served } from './support.js';
import { NOBODY, nobodyCannotRun } from '../helpers/nobody.js';

const EVERY_MODULE = ['@acme/app/main', '@acme/app/templates', '@acme/lib/format', '@acme/lib/server', '@acme/lib/widgets/badge'];
const ADDRESSES = [
  `/m/@acme/app@1.0.0/modules/main?${DEV}`,
  `/m/@acme/app@1.0.0/styles/main?${DEV}`,
  `/m/@acme/app@1.0.0/modules/main?${PROD}`,
  '/m/@acme/app@1.0.0/assets/main/logo.svg',
  `/m/@acme/app@1.0.0/modules/templates?${DEV}`,
  `/m/@acme/lib@1.2.0/modules/format?${DEV}`,
  '/m/@acme/lib@1.2.0/modules/server?target=node',
  `/m/@acme/lib@1.2.0/modules/widgets/badge?${DEV}`,
  '/m/@acme/lib@1.2.0/assets/widgets/badge/star.svg',
  '/state',
  '/preview/entry.json',
];

/** An answer that is no defect: an output, or an error of the table, as JSON, with its status. */
function expectNoDefect(address: string, answer: Answer): void {
  const where = `${address}: ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).to.be.below(500);
  if (answer.status === 200 || answer.status === 304) return;
  expect(answer.headers['content-type'], where).to.match(/^application\/json/);
  const code = answer.json<{ code: keyof typeof ERROR_CODES }>().code;
  expect(code, where).to.be.oneOf(Object.keys(ERROR_CODES));
  expect(ERROR_CODES[code].status, where).to.equal(answer.status);
}

/** Asks every address of the fixture: each answers without a defect. */
async function askEverything(base: string): Promise<Map<string, Answer>> {
  const answers = new Map<string, Answer>();
  for (const address of ADDRESSES) {
    const answer = await get(base, address);
    expectNoDefect(address, answer);
    answers.set(address, answer);
  }
  return answers;
}

const everyModuleValid = (report: Report) => {
  expect(report.diagnostics).to.deep.equal([]);
  expect(report.modules.map((m) => `${m.specifier} ${m.status}`)).to.have.members(EVERY_MODULE.map((s) => `${s} valid`));
};

describe('faults while serving', function () {
  this.timeout(120_000);

  describe('manifests and packages deleted, renamed, removed', function () {
    let root: string;
    let service: Served;
    const reported: string[] = [];
    let baseline: Map<string, Answer>;

    /** The live report equals a fresh service's on the same tree (in outline, for esbuild's own wording), and every address answers. */
    async function expectLikeFresh(what: string, compare: (report: Report) => unknown = (report) => report): Promise<Report> {
      const live = await stateOf(service);
      expect(compare(live), `${what}: /state against a fresh service`).to.deep.equal(compare(await freshReport(root)));
      await askEverything(service.url);
      return live;
    }

    /** Once the tree is whole again: every module valid, every address answering as before the fault. */
    async function expectRecovered(what: string) {
      everyModuleValid(await stateOf(service));
      const after = await askEverything(service.url);
      for (const [address, answer] of baseline) {
        expect(after.get(address)!.status, `${address} after ${what}`).to.equal(answer.status);
        if (address.startsWith('/m/')) expect(after.get(address)!.body.equals(answer.body), `${address} after ${what}`).to.equal(true);
      }
    }

    before(async function () {
      root = fixtureWorkspace('basic');
      service = await serve(root, { logger: (line) => reported.push(line) });
      everyModuleValid(await stateOf(service));
      baseline = await askEverything(service.url);
    });
    after(async function () {
      await service?.close();
    });
    afterEach(function () {
      expect(defects(reported)).to.deep.equal([]);
    });

    it('drops a module whose module.json is deleted, and serves it again once restored', async function () {
      const manifest = 'packages/lib/widgets/badge/module.json';
      const text = readText(root, manifest);
      remove(root, manifest);
      const live = await expectLikeFresh('module.json deleted');
      expect(moduleOf(live, '@acme/lib/widgets/badge')).to.equal(undefined);
      const gone = await service.get(`/m/@acme/lib@1.2.0/modules/widgets/badge?${DEV}`);
      expect(gone.status).to.equal(404);
      expect(gone.json().code).to.equal('OUTPUT_NOT_AVAILABLE');
      expect((await service.get('/m/@acme/lib@1.2.0/assets/widgets/badge/star.svg')).status).to.equal(404);
      write(root, manifest, text);
      await expectRecovered('module.json restored');
    });

    it('reads a module.json renamed away and back', async function () {
      const manifest = path.join(root, 'packages/lib/widgets/badge/module.json');
      fs.renameSync(manifest, `${manifest}.bak`);
      expect(moduleOf(await expectLikeFresh('module.json renamed'), '@acme/lib/widgets/badge')).to.equal(undefined);
      fs.renameSync(`${manifest}.bak`, manifest);
      await expectRecovered('module.json renamed back');
    });

    it('loses the declared assets of a module whose module.json beside its exports entry is deleted', async function () {
      const manifest = 'packages/app/main/module.json';
      const text = readText(root, manifest);
      remove(root, manifest);
      const live = await expectLikeFresh('the main module.json deleted');
      expect(moduleOf(live, '@acme/app/main'), 'still declared by exports').to.not.equal(undefined);
      const logo = await service.get('/m/@acme/app@1.0.0/assets/main/logo.svg');
      expect(logo.status).to.equal(404);
      expect(logo.json().code).to.equal('OUTPUT_NOT_AVAILABLE');
      write(root, manifest, text);
      await expectRecovered('the main module.json restored');
    });

    it('reports a deleted package.json in the top-level diagnostics, and reads it again once restored', async function () {
      const manifest = 'packages/lib/package.json';
      const text = readText(root, manifest);
      remove(root, manifest);
      const live = await expectLikeFresh('package.json deleted');
      expect(live.diagnostics.map((d) => d.kind)).to.deep.equal(['MANIFEST_INVALID']);
      expect(live.modules.filter((m) => m.package === '@acme/lib')).to.deep.equal([]);
      // Its name read (README "Workspaces"): its addresses answer its problem, never a CDN's copy.
      expect((await service.get(`/m/@acme/lib@1.2.0/modules/format?${DEV}`)).status).to.equal(422);
      write(root, manifest, text);
      await expectRecovered('package.json restored');
    });

    it('reads a package.json renamed away and back', async function () {
      const manifest = path.join(root, 'packages/app/package.json');
      fs.renameSync(manifest, path.join(root, 'packages/app/package.json.orig'));
      const live = await expectLikeFresh('package.json renamed');
      expect(live.modules.filter((m) => m.package === '@acme/app')).to.deep.equal([]);
      fs.renameSync(path.join(root, 'packages/app/package.json.orig'), manifest);
      await expectRecovered('package.json renamed back');
    });

    it('reports a deleted core.json, serving nothing under /m/, and reads it again once restored', async function () {
      const text = readText(root, 'core.json');
      remove(root, 'core.json');
      const live = await expectLikeFresh('core.json deleted');
      expect(live.modules).to.deep.equal([]);
      expect(live.diagnostics.map((d) => d.file)).to.deep.equal(['core.json']);
      expect((await service.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`)).status).to.equal(404);
      write(root, 'core.json', text);
      await expectRecovered('core.json restored');
    });

    it('reports a package directory removed, and serves it again once it is back', async function () {
      remove(root, 'packages/lib');
      const live = await expectLikeFresh('packages/lib removed');
      expect(live.modules.filter((m) => m.package === '@acme/lib')).to.deep.equal([]);
      expect(live.diagnostics.map((d) => d.message).join()).to.include('packages/lib');
      // Its name read (README "Workspaces"): its addresses answer its problem, never a CDN's copy.
      for (const address of ADDRESSES.filter((a) => a.includes('@acme/lib@'))) expect((await service.get(address)).status, address).to.equal(422);
      fs.cpSync(path.join(TEST_FIXTURES_DIR, 'basic/packages/lib'), path.join(root, 'packages/lib'), { recursive: true });
      await expectRecovered('packages/lib copied back');
    });

    it('reports a package directory renamed, and serves it again once renamed back', async function () {
      fs.renameSync(path.join(root, 'packages/lib'), path.join(root, 'packages/lib-moved'));
      const live = await expectLikeFresh('packages/lib renamed');
      expect(live.modules.filter((m) => m.package === '@acme/lib')).to.deep.equal([]);
      fs.renameSync(path.join(root, 'packages/lib-moved'), path.join(root, 'packages/lib'));
      await expectRecovered('packages/lib renamed back');
    });

    it('survives a module directory removed while its build may be running, and one replaced by a file', async function () {
      remove(root, 'packages/lib/format');
      await expectLikeFresh('a module directory removed');
      write(root, 'packages/lib/format', 'not a directory');
      const live = await expectLikeFresh('a module directory replaced by a file', outline);
      expect(moduleOf(live, '@acme/lib/format')!.status).to.equal('invalid');
      remove(root, 'packages/lib/format');
      fs.cpSync(path.join(TEST_FIXTURES_DIR, 'basic/packages/lib/format'), path.join(root, 'packages/lib/format'), { recursive: true });
      await expectRecovered('the module directory back');
    });

    it('survives a manifest replaced by a directory, and by a symbolic link to itself', async function () {
      const manifest = path.join(root, 'packages/lib/widgets/badge/module.json');
      const text = fs.readFileSync(manifest, 'utf8');
      fs.rmSync(manifest);
      fs.mkdirSync(manifest);
      await expectLikeFresh('module.json a directory');
      fs.rmdirSync(manifest);
      fs.symlinkSync(manifest, manifest); // reading it fails with ELOOP
      await expectLikeFresh('module.json a symbolic-link loop');
      fs.rmSync(manifest);
      fs.writeFileSync(manifest, text);
      await expectRecovered('module.json a file again');
    });
  });

  describe('files made unreadable while serving', function () {
    // Permissions do not stop root: when the tests run as root, the services run as `nobody`.
    const asNobody = process.getuid?.() === 0;
    const children = new Set<ChildProcess>();
    let root: string;
    let live: { url: string; child: ChildProcess; stderr: () => string };

    /** `core run --port 0` on `root`, as `nobody` when the tests run as root; resolves once it prints its URL. */
    async function launch(): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
      const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'https://cdn.test' };
      delete env.NODE_OPTIONS;
      const child = spawn(process.execPath, [CORE_BIN, 'run', '--port', '0'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], ...(asNobody ? NOBODY : {}) });
      children.add(child);
      child.on('close', () => children.delete(child));
      let stdout = '';
      let stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const url = await waitFor(
        () => {
          if (child.exitCode !== null) throw new Error(`core run ended (${child.exitCode}) before printing its URL: ${stderr}`);
          return /^\s*(http:\/\/[^\s/]+\/)\s*$/m.exec(stdout)?.[1];
        },
        { timeout: 30_000, what: 'the URL of core run' },
      );
      return { url, child, stderr: () => stderr };
    }

    const stop = (child: ChildProcess) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('close', () => resolve());
        child.kill('SIGTERM');
      });

    async function report(url: string): Promise<Report> {
      const answer = await get(url, '/state');
      expect(answer.status, answer.text.slice(0, 300)).to.equal(200);
      return answer.json<Report>();
    }

    /**
     * The live report equals the one of a fresh service (with the same permissions) on the same
     * tree, each diagnostic with its message, line and column ("Cannot read file" at the import).
     */
    async function expectLikeFresh(what: string): Promise<Report> {
      const now = await report(live.url);
      const fresh = await launch();
      try {
        expect(withSortedDiagnostics(now), `${what}: /state against a fresh service`).to.deep.equal(withSortedDiagnostics(await report(fresh.url)));
        await askEverything(fresh.url);
      } finally {
        await stop(fresh.child);
      }
      await askEverything(live.url);
      return now;
    }

    before(async function () {
      const unreachable = asNobody ? nobodyCannotRun() : null;
      if (unreachable) {
        console.log(`      skipped: ${unreachable}`);
        this.skip();
      }
      root = fixtureWorkspace('basic');
      // `nobody` must be able to read the copy (a temporary directory is private to root).
      fs.chmodSync(root, 0o755);
      live = await launch();
      everyModuleValid(await report(live.url));
    });
    after(async function () {
      await Promise.all([...children].map(stop));
    });
    afterEach(function () {
      expect(defects(live.stderr().split('\n'))).to.deep.equal([]);
    });

    for (const [what, file, check] of [
      ['a module.json', 'packages/lib/widgets/badge/module.json', (r: Report) => expect(moduleOf(r, '@acme/lib/widgets/badge')?.status).to.not.equal('valid')],
      ['a package.json', 'packages/lib/package.json', (r: Report) => expect(r.diagnostics).to.not.deep.equal([])],
      ['core.json', 'core.json', (r: Report) => expect(r.modules).to.deep.equal([])],
      ['a helper source', 'packages/app/main/helper.ts', (r: Report) => expect(moduleOf(r, '@acme/app/main')!.status).to.equal('invalid')],
      ['a stylesheet', 'packages/app/main/styles.css', (r: Report) => expect(moduleOf(r, '@acme/app/main')!.status).to.equal('invalid')],
      ['a declared asset', 'packages/app/main/logo.svg', () => {}],
    ] as const) {
      it(`is seen when ${what} becomes unreadable, and again when it is readable`, async function () {
        const target = path.join(root, file);
        // Served at least once before, so the service knows its content.
        await askEverything(live.url);
        fs.chmodSync(target, 0o000);
        try {
          const now = await expectLikeFresh(`${file} unreadable`);
          check(now);
          if (file.endsWith('.svg')) {
            const logo = await get(live.url, '/m/@acme/app@1.0.0/assets/main/logo.svg');
            expect(logo.status, `an unreadable asset: ${logo.text.slice(0, 200)}`).to.equal(404);
            expect(logo.text).not.to.include('<svg');
          }
        } finally {
          fs.chmodSync(target, 0o644);
        }
        everyModuleValid(await report(live.url));
        const logo = await get(live.url, '/m/@acme/app@1.0.0/assets/main/logo.svg');
        expect(logo.status).to.equal(200);
      });
    }
  });

  describe('a watcher that misses every event (watch: false): the check before answering sees each change', function () {
    let root: string;
    let service: Served;
    const reported: string[] = [];

    before(async function () {
      root = fixtureWorkspace('basic');
      service = await serve(root, { watch: false, logger: (line) => reported.push(line) });
      everyModuleValid(await stateOf(service));
    });
    after(async function () {
      await service?.close();
    });
    afterEach(function () {
      expect(defects(reported)).to.deep.equal([]);
    });

    it('serves an edited helper, stylesheet and asset in the very next answer', async function () {
      edit(root, 'packages/app/main/helper.ts', (text) => text.replace('APP_HELPER_MARKER', 'UNWATCHED_HELPER_EDIT'));
      expect((await service.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`)).text).to.include('UNWATCHED_HELPER_EDIT');
      expect((await service.get(`/m/@acme/app@1.0.0/modules/main?${PROD}`)).text).to.include('UNWATCHED_HELPER_EDIT');
      edit(root, 'packages/app/main/styles.css', (text) => text.replace('rgb(1, 2, 3)', 'rgb(9, 8, 7)'));
      expect((await service.get(`/m/@acme/app@1.0.0/styles/main?${DEV}`)).text).to.include('rgb(9, 8, 7)');
      edit(root, 'packages/app/main/logo.svg', (text) => text.replace('#123456', '#654321'));
      expect((await service.get('/m/@acme/app@1.0.0/assets/main/logo.svg')).text).to.include('#654321');
      edit(root, 'packages/lib/format/internal/pad.ts', (text) => text.replace('LIB_PAD_MARKER', 'UNWATCHED_PAD_EDIT'));
      expect((await service.get(`/m/@acme/lib@1.2.0/modules/format?${DEV}`)).text).to.include('UNWATCHED_PAD_EDIT');
    });

    it('reports a broken source and a broken manifest in the very next /state, and their fixes', async function () {
      const helper = edit(root, 'packages/app/main/helper.ts', (text) => `${text}\nexport const broken = ;\n`);
      expect(moduleOf(await stateOf(service), '@acme/app/main')!.status).to.equal('invalid');
      write(root, 'packages/app/main/helper.ts', helper);
      const badge = editJson(root, 'packages/lib/widgets/badge/module.json', (json) => (json.platforms = 'web'));
      const report = await stateOf(service);
      expect(moduleOf(report, '@acme/app/main')!.status).to.equal('valid');
      expect(moduleOf(report, '@acme/lib/widgets/badge')!.status).to.equal('invalid');
      write(root, 'packages/lib/widgets/badge/module.json', badge);
      everyModuleValid(await stateOf(service));
    });

    it('sees a new module, a version change and a removed module in the very next answer', async function () {
      write(root, 'packages/lib/widgets/chip/index.ts', "export const CHIP = 'UNWATCHED_NEW_MODULE';\n");
      write(root, 'packages/lib/widgets/chip/module.json', '{"entry": "index.ts"}');
      const chip = await service.get(`/m/@acme/lib@1.2.0/modules/widgets/chip?${DEV}`);
      expect(chip.status).to.equal(200);
      expect(chip.text).to.include('UNWATCHED_NEW_MODULE');
      const lib = editJson(root, 'packages/lib/package.json', (json) => (json.version = '1.4.0'));
      expect((await service.get(`/m/@acme/lib@1.2.0/modules/widgets/chip?${DEV}`)).status).to.equal(404);
      expect((await service.get(`/m/@acme/lib@1.4.0/modules/widgets/chip?${DEV}`)).status).to.equal(200);
      remove(root, 'packages/lib/widgets/chip');
      expect((await service.get(`/m/@acme/lib@1.4.0/modules/widgets/chip?${DEV}`)).status).to.equal(404);
      write(root, 'packages/lib/package.json', lib);
      everyModuleValid(await stateOf(service));
    });

    it('learned every change from the check, none from a watcher', async function () {
      const events = parseNdjson((await service.get('/log')).text).filter((e): e is Extract<CoreEvent, { type: 'files.changed' }> => e.type === 'files.changed');
      expect(events.length).to.be.at.least(8);
      expect(new Set(events.map((e) => e.source))).to.deep.equal(new Set(['check']));
    });
  });

  describe('a recording server killed with SIGKILL', function () {
    let root: string;
    let record: string;
    let core: RunningCore;

    beforeEach(async function () {
      root = fixtureWorkspace('basic');
      record = path.join(tempWorkspace(), 'session.ndjson');
      core = await startCore(['--port', '0', '--record', record], { cwd: root });
      await get(core.url, '/state');
    });
    afterEach(async function () {
      await killAllCores();
    });

    /** The complete lines of the log: those a newline ends. */
    const completeEvents = (text: string): CoreEvent[] => parseNdjson(text.slice(0, text.lastIndexOf('\n') + 1));

    /** The log as left by the killed server parses, and replays to the fold of its complete events. */
    async function expectReplayable(text: string): Promise<Report> {
      const parsed = parseLog(text, record);
      if (!text.endsWith('\n')) expect(parsed.warnings.join(), 'a cut-off last line is named').to.include('cut off');
      const complete = completeEvents(text);
      expect(parsed.events).to.deep.equal(complete);
      expect(complete.map((e) => e.seq), 'every event, in order').to.deep.equal(complete.map((_, index) => index + 1));
      const folded = selectReport(replay(lastSession(parsed.events)));
      expect(folded).to.deep.equal(selectReport(replay(lastSession(complete))));
      // The command line says the same.
      fs.writeFileSync(`${record}.copy`, text);
      const result = await runCore(['replay', `${record}.copy`], { cwd: root });
      expect(result.code, result.stderr).to.equal(0);
      expect(JSON.parse(result.stdout)).to.deep.equal(folded);
      return folded;
    }

    it('leaves a log that replays to the last /state it answered, when killed once quiet', async function () {
      write(root, 'packages/app/main/helper.ts', "export const greet = () => 'KILLED_QUIET';\n");
      write(root, 'packages/lib/widgets/badge/module.json', '{"platforms": "web"}');
      const answer = await get(core.url, '/state');
      expect(answer.status).to.equal(200);
      const live = answer.json<Report>();
      expect(moduleOf(live, '@acme/lib/widgets/badge')!.status).to.equal('invalid');
      const ended = await core.stop('SIGKILL');
      expect(ended.signal).to.equal('SIGKILL');
      expect(await expectReplayable(fs.readFileSync(record, 'utf8'))).to.deep.equal(live);
    });

    it('leaves a log that replays to its last complete event, when killed amid edits and builds', async function () {
      const requests: Promise<unknown>[] = [];
      let n = 0;
      // Edits and requests until the kill: the server dies with builds running and events being written.
      const storm = setInterval(() => {
        n += 1;
        write(root, 'packages/app/main/helper.ts', n % 5 === 0 ? 'export const = ;\n' : `export const greet = () => 'KILL_${n}';\n`);
        write(root, 'packages/app/main/styles.css', `.core-probe { color: rgb(${n % 256}, 0, 0); }\n`);
        requests.push(get(core.url, `/m/@acme/app@1.0.0/modules/main?${DEV}`).catch(() => null));
        requests.push(get(core.url, `/m/@acme/lib@1.2.0/modules/format?${PROD}&v=${n}`).catch(() => null));
      }, 5);
      try {
        await waitFor(() => fs.readFileSync(record, 'utf8').split('\n').length > 150, { timeout: 30_000, what: '150 events recorded' });
      } finally {
        clearInterval(storm);
      }
      const ended = await core.stop('SIGKILL');
      expect(ended.signal).to.equal('SIGKILL');
      await Promise.all(requests);
      const text = fs.readFileSync(record, 'utf8');
      await expectReplayable(text);
      // A line the writer did not finish is skipped with a warning: the same fold.
      const lines = text.trimEnd().split('\n');
      const cut = `${text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1)}${lines[Math.floor(lines.length / 2)]!.slice(0, 40)}`;
      const parsed = parseLog(cut, record);
      expect(parsed.warnings).to.have.lengthOf(1);
      expect(parsed.warnings[0]).to.include('cut off');
      expect(selectReport(replay(lastSession(parsed.events)))).to.deep.equal(selectReport(replay(lastSession(completeEvents(text)))));
    });

    it('starts a new session in the same log after a kill, and replays that one', async function () {
      await core.stop('SIGKILL');
      fs.appendFileSync(record, '{"seq": 999, "time": "2025-01-01T00:00:00.000Z", "type": "build.star'); // as if cut mid-line
      const again = await startCore(['--port', '0', '--record', record], { cwd: root });
      const live = (await get(again.url, '/state')).json<Report>();
      await again.stop('SIGKILL');
      const text = fs.readFileSync(record, 'utf8');
      // The cut line is followed by a whole new session, begun on a line of its own.
      let parsed;
      try {
        parsed = parseLog(text, record);
      } catch (error) {
        throw new Error(`a log holding a killed session and a new one cannot be replayed: ${(error as Error).message}`);
      }
      expect(parsed.warnings).to.have.lengthOf(1);
      expect(parsed.warnings[0]).to.include('cut off');
      expect(parsed.events.filter((e) => e.type === 'service.started')).to.have.lengthOf(2);
      expect(selectReport(replay(lastSession(parsed.events)))).to.deep.equal(live);
      const result = await runCore(['replay', record], { cwd: root });
      expect(result.code, result.stderr).to.equal(0);
      expect(JSON.parse(result.stdout)).to.deep.equal(live);
    });
  });
});
