// Bad input never crashes the service and never answers 500; every edit is seen by the very
// next answer (README "Workspaces", README "Addresses"): broken manifests, missing files, version changes, new
// modules, code and stylesheet edits, against a real server on a workspace edited on disk.
import { expect } from 'chai';
import { expectError, findDiagnostic } from '../helpers/answers.js';
import { edit, editJson, readText, remove, write } from '../helpers/edit.js';
import { DEV, fixtureWorkspace, PROD } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import type { Report, ModuleReport } from '../../src/store/selectors.js';

const moduleOf = (report: Report, specifier: string): ModuleReport | undefined => report.modules.find((m) => m.specifier === specifier);

const EVERY_MODULE = ['@acme/app/main', '@acme/app/templates', '@acme/lib/format', '@acme/lib/server', '@acme/lib/widgets/badge'];

/** A service on a copy of the basic fixture whose every answer and report line is kept. */
async function watchedService(options: { watch?: boolean } = {}) {
  const root = fixtureWorkspace('basic');
  const reports: string[] = [];
  const statuses: { address: string; status: number }[] = [];
  const service = await serve(root, { ...options, logger: (line) => reports.push(line) });
  const get = async (address: string) => {
    const answer = await service.get(address);
    statuses.push({ address, status: answer.status });
    return answer;
  };
  const state = async () => {
    const answer = await get('/state');
    expect(answer.status).to.equal(200);
    return answer.json<Report>();
  };
  /** Nothing answered 500, nothing was reported as an internal error. */
  const expectNoDefect = () => {
    expect(statuses.filter((s) => s.status >= 500), 'answers with a 5xx status').to.deep.equal([]);
    expect(reports.filter((line) => /internal error|stopped/i.test(line)), 'internal errors reported').to.deep.equal([]);
  };
  return { root, service, get, state, expectNoDefect };
}

describe('editing the workspace under a running service', function () {
  let live: Awaited<ReturnType<typeof watchedService>>;
  let root: string;

  before(async function () {
    live = await watchedService();
    root = live.root;
  });
  after(async function () {
    await live?.service.close();
  });
  afterEach(async function () {
    live.expectNoDefect();
    // Every test restores what it broke: the workspace is whole again, every module valid.
    const report = await live.state();
    expect(report.diagnostics, 'top-level diagnostics after the test').to.deep.equal([]);
    expect(report.modules.map((m) => `${m.specifier} ${m.status}`)).to.have.members(EVERY_MODULE.map((s) => `${s} valid`));
  });

  describe('a broken module.json', function () {
    it('lists its module invalid with MANIFEST_INVALID naming the file, line and column', async function () {
      const before = readText(root, 'packages/app/main/module.json');
      write(root, 'packages/app/main/module.json', '{\n  "platforms": ["web"],\n  "assets": ["logo.svg"],\n}\n');
      try {
        const main = moduleOf(await live.state(), '@acme/app/main')!;
        expect(main.status).to.equal('invalid');
        const problem = findDiagnostic(main.diagnostics, 'MANIFEST_INVALID');
        expect(problem).to.include({ file: 'packages/app/main/module.json', line: 4, column: 1 });
        // The other modules are untouched.
        expect(moduleOf(await live.state(), '@acme/lib/format')!.status).to.equal('valid');
        const body = expectError(await live.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`), { status: 422, code: 'BUILD_FAILED', mentions: ['@acme/app/main'], diagnostics: true });
        expect(findDiagnostic(body.diagnostics, 'MANIFEST_INVALID')).to.include({ file: 'packages/app/main/module.json', line: 4 });
      } finally {
        write(root, 'packages/app/main/module.json', before);
      }
    });

    it('points at a missing value too', async function () {
      const before = readText(root, 'packages/app/main/module.json');
      write(root, 'packages/app/main/module.json', '{\n  "platforms": ["web"],\n  "assets": }\n');
      try {
        const problem = findDiagnostic(moduleOf(await live.state(), '@acme/app/main')!.diagnostics, 'MANIFEST_INVALID');
        expect(problem).to.include({ file: 'packages/app/main/module.json', line: 3 });
        expect(problem.column).to.be.a('number').within(12, 14);
      } finally {
        write(root, 'packages/app/main/module.json', before);
      }
    });

    it('lists a member of the wrong type as MANIFEST_INVALID naming the member', async function () {
      const before = editJson(root, 'packages/lib/widgets/badge/module.json', (json) => (json.platforms = 'web'));
      try {
        const badge = moduleOf(await live.state(), '@acme/lib/widgets/badge')!;
        expect(badge.status).to.equal('invalid');
        const problem = findDiagnostic(badge.diagnostics, 'MANIFEST_INVALID');
        expect(problem.file).to.equal('packages/lib/widgets/badge/module.json');
        expect(problem.message).to.include('platforms');
      } finally {
        write(root, 'packages/lib/widgets/badge/module.json', before);
      }
    });

    it('lists a module with an unknown bundler invalid, naming the bundler', async function () {
      const before = editJson(root, 'packages/lib/widgets/badge/module.json', (json) => (json.bundler = 'rollup'));
      try {
        const badge = moduleOf(await live.state(), '@acme/lib/widgets/badge')!;
        expect(badge.status).to.equal('invalid');
        expect(findDiagnostic(badge.diagnostics, 'MANIFEST_INVALID').message).to.include('rollup');
        const body = expectError(await live.get(`/m/@acme/lib@1.2.0/modules/widgets/badge?${DEV}`), { status: 422, code: 'BUILD_FAILED', mentions: ['@acme/lib/widgets/badge'], diagnostics: true });
        expect(body.diagnostics![0]!.message).to.include('rollup');
      } finally {
        write(root, 'packages/lib/widgets/badge/module.json', before);
      }
    });
  });

  describe('broken workspace manifests', function () {
    it('reports a broken package.json in the top-level diagnostics and keeps serving the other packages', async function () {
      const before = readText(root, 'packages/lib/package.json');
      write(root, 'packages/lib/package.json', '{ "name": "@acme/lib", "version": ');
      try {
        const report = await live.state();
        const problem = findDiagnostic(report.diagnostics, 'MANIFEST_INVALID');
        expect(problem.file).to.equal('packages/lib/package.json');
        expect(problem.line).to.equal(1);
        expect(problem.column).to.be.a('number');
        expect(report.modules.map((m) => m.specifier)).to.have.members(['@acme/app/main', '@acme/app/templates']);
        // Still the workspace's package (README "Workspaces"): its address answers the manifest's problem.
        const body = expectError(await live.get(`/m/@acme/lib@1.2.0/modules/format?${DEV}`), { status: 422, code: 'BUILD_FAILED', mentions: ['@acme/lib', 'packages/lib/package.json'], diagnostics: true });
        expect(body.diagnostics!.map((d) => [d.kind, d.file])).to.deep.equal([['MANIFEST_INVALID', 'packages/lib/package.json']]);
        expect((await live.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`)).status).to.equal(200);
      } finally {
        write(root, 'packages/lib/package.json', before);
      }
    });

    it('reports a deleted core.json in the top-level diagnostics, then serves again once it is back', async function () {
      const before = readText(root, 'core.json');
      remove(root, 'core.json');
      try {
        const report = await live.state();
        expect(findDiagnostic(report.diagnostics, 'MANIFEST_INVALID').file).to.equal('core.json');
        expect(report.modules).to.deep.equal([]);
        expectError(await live.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`), { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: ['@acme/app'] });
        expect((await live.get('/preview/entry.json')).status).to.be.within(400, 499);
      } finally {
        write(root, 'core.json', before);
      }
      expect((await live.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`)).status).to.equal(200);
    });

    it('reports core.json that is not JSON, naming the line', async function () {
      const before = readText(root, 'core.json');
      write(root, 'core.json', '{"packages":\n  ["packages/app", "packages/lib"\n}\n');
      try {
        const problem = findDiagnostic((await live.state()).diagnostics, 'MANIFEST_INVALID');
        expect(problem).to.include({ file: 'core.json', line: 3 });
      } finally {
        write(root, 'core.json', before);
      }
    });
  });

  describe('missing files', function () {
    it('lists a module whose exports entry file is gone invalid with a BUNDLE_ERROR naming the file', async function () {
      const before = readText(root, 'packages/lib/format/index.ts');
      remove(root, 'packages/lib/format/index.ts');
      try {
        const format = moduleOf(await live.state(), '@acme/lib/format')!;
        expect(format.status).to.equal('invalid');
        expect(findDiagnostic(format.diagnostics, 'BUNDLE_ERROR').file).to.equal('packages/lib/format/index.ts');
        const body = expectError(await live.get(`/m/@acme/lib@1.2.0/modules/format?${PROD}`), { status: 422, code: 'BUILD_FAILED', mentions: ['@acme/lib/format'], diagnostics: true });
        expect(findDiagnostic(body.diagnostics, 'BUNDLE_ERROR').file).to.equal('packages/lib/format/index.ts');
      } finally {
        write(root, 'packages/lib/format/index.ts', before);
      }
    });

    it('ends valid after the entry file is deleted and restored again and again (cancelled rebuilds leave no trace)', async function () {
      // The watcher and the check before answering both see each change, so rebuilds are
      // cancelled and started again in quick succession on one esbuild context.
      const before = readText(root, 'packages/lib/format/index.ts');
      for (let round = 1; round <= 25; round += 1) {
        remove(root, 'packages/lib/format/index.ts');
        expect(moduleOf(await live.state(), '@acme/lib/format')!.status, `round ${round}, deleted`).to.equal('invalid');
        expect((await live.get(`/m/@acme/lib@1.2.0/modules/format?${PROD}`)).status).to.equal(422);
        write(root, 'packages/lib/format/index.ts', before);
        const format = moduleOf(await live.state(), '@acme/lib/format')!;
        expect(format.diagnostics, `round ${round}, restored`).to.deep.equal([]);
        expect(format.status).to.equal('valid');
      }
    });

    it('lists a module whose module.json entry does not exist invalid with a BUNDLE_ERROR naming it', async function () {
      const before = editJson(root, 'packages/lib/widgets/badge/module.json', (json) => (json.entry = 'gone.ts'));
      try {
        const badge = moduleOf(await live.state(), '@acme/lib/widgets/badge')!;
        expect(badge.status).to.equal('invalid');
        expect(findDiagnostic(badge.diagnostics, 'BUNDLE_ERROR').file).to.equal('packages/lib/widgets/badge/gone.ts');
      } finally {
        write(root, 'packages/lib/widgets/badge/module.json', before);
      }
    });

    it('takes a stylesheet importing a missing file from valid to invalid and back', async function () {
      const address = `/m/@acme/app@1.0.0/styles/main?${DEV}`;
      const before = edit(root, 'packages/app/main/styles.css', (text) => `@import "./gone.css";\n${text}`);
      try {
        const main = moduleOf(await live.state(), '@acme/app/main')!;
        expect(main.status).to.equal('invalid');
        const problem = findDiagnostic(main.diagnostics, 'BUNDLE_ERROR');
        expect(problem).to.include({ file: 'packages/app/main/styles.css', line: 1 });
        expect(problem.message).to.include('gone.css');
        const body = expectError(await live.get(address), { status: 422, code: 'BUILD_FAILED', mentions: ['@acme/app/main'], diagnostics: true });
        expect(findDiagnostic(body.diagnostics, 'BUNDLE_ERROR').message).to.include('gone.css');
      } finally {
        write(root, 'packages/app/main/styles.css', before.replace('rgb(1, 2, 3)', 'rgb(3, 2, 1)'));
      }
      expect(moduleOf(await live.state(), '@acme/app/main')!.status).to.equal('valid');
      const fixed = await live.get(address);
      expect(fixed.status).to.equal(200);
      expect(fixed.text).to.include('rgb(3, 2, 1)');
      write(root, 'packages/app/main/styles.css', before);
    });
  });

  describe('package.json edits', function () {
    it('moves a package to its new version: the old address answers 404, the new one 200', async function () {
      const oldAddress = `/m/@acme/lib@1.2.0/modules/format?${DEV}`;
      expect((await live.get(oldAddress)).status).to.equal(200);
      const before = editJson(root, 'packages/lib/package.json', (json) => (json.version = '1.3.0'));
      try {
        const old = await live.get(oldAddress);
        expectError(old, { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: ['1.2.0', '1.3.0'] });
        expect(old.text).not.to.include('LIB_PAD_MARKER');
        const fresh = await live.get(`/m/@acme/lib@1.3.0/modules/format?${DEV}`);
        expect(fresh.status).to.equal(200);
        expect(fresh.text).to.include('LIB_PAD_MARKER');
        expect((await live.get('/m/@acme/lib@1.3.0/assets/widgets/badge/star.svg')).status).to.equal(200);
        expect(moduleOf(await live.state(), '@acme/lib/format')!.version).to.equal('1.3.0');
      } finally {
        write(root, 'packages/lib/package.json', before);
      }
      expect((await live.get(oldAddress)).status).to.equal(200);
    });

    it('judges dependencies again when a range changes, without a source edit', async function () {
      const before = editJson(root, 'packages/app/package.json', (json) => (json.dependencies['@acme/lib'] = '^2.0.0'));
      try {
        const main = moduleOf(await live.state(), '@acme/app/main')!;
        expect(main.status).to.equal('invalid');
        expect(findDiagnostic(main.diagnostics, 'DEPENDENCY_INCOMPATIBLE').file).to.equal('packages/app/main/index.ts');
        editJson(root, 'packages/app/package.json', (json) => delete json.dependencies['@acme/lib']);
        expect(findDiagnostic(moduleOf(await live.state(), '@acme/app/main')!.diagnostics, 'DEPENDENCY_NOT_DECLARED').message).to.include('@acme/lib');
      } finally {
        write(root, 'packages/app/package.json', before);
      }
    });
  });

  describe('new modules and code edits', function () {
    it('lists a new manifest-only module in the very next /state and serves it', async function () {
      write(root, 'packages/lib/widgets/chip/index.ts', "export const chip = (label: string): string => `[${label}] CHIP_MARKER`;\n");
      write(root, 'packages/lib/widgets/chip/module.json', '{"platforms":["web"],"entry":"index.ts"}\n');
      try {
        const chip = moduleOf(await live.state(), '@acme/lib/widgets/chip');
        expect(chip, 'the new module in the very next report').to.include({ status: 'valid', subpath: 'widgets/chip', version: '1.2.0' });
        const code = await live.get(`/m/@acme/lib@1.2.0/modules/widgets/chip?${DEV}`);
        expect(code.status).to.equal(200);
        expect(code.text).to.include('CHIP_MARKER');
      } finally {
        remove(root, 'packages/lib/widgets/chip');
      }
      expect(moduleOf(await live.state(), '@acme/lib/widgets/chip')).to.equal(undefined);
      expectError(await live.get(`/m/@acme/lib@1.2.0/modules/widgets/chip?${DEV}`), { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: ['widgets/chip'] });
    });

    it('serves each of several edits in a row at the very next request, never the old text', async function () {
      const before = readText(root, 'packages/app/main/helper.ts');
      try {
        for (let round = 1; round <= 6; round += 1) {
          // Same length every time: only the content tells the versions apart.
          write(root, 'packages/app/main/helper.ts', before.replace('APP_HELPER_MARKER', `EDITED_MARKER_${round}`));
          for (const query of [DEV, PROD]) {
            const code = await live.get(`/m/@acme/app@1.0.0/modules/main?${query}`);
            expect(code.status, `round ${round}`).to.equal(200);
            expect(code.text, `round ${round}`).to.include(`EDITED_MARKER_${round}`);
            expect(code.text, `round ${round}`).not.to.include(`EDITED_MARKER_${round - 1}`);
            expect(code.text, `round ${round}`).not.to.include('APP_HELPER_MARKER');
          }
        }
      } finally {
        write(root, 'packages/app/main/helper.ts', before);
      }
      expect((await live.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`)).text).to.include('APP_HELPER_MARKER');
    });

    it('changes the ETag with the content, so a cached copy is never answered 304', async function () {
      const address = `/m/@acme/app@1.0.0/styles/main?${DEV}`;
      const first = await live.get(address);
      const before = edit(root, 'packages/app/main/styles.css', (text) => text.replace('rgb(1, 2, 3)', 'rgb(9, 9, 9)'));
      try {
        const second = await live.get(address);
        expect(second.headers.etag).to.not.equal(first.headers.etag);
        const revalidated = await live.service.get(address, { 'if-none-match': first.headers.etag! });
        expect(revalidated.status).to.equal(200);
        expect(revalidated.text).to.include('rgb(9, 9, 9)');
      } finally {
        write(root, 'packages/app/main/styles.css', before);
      }
    });

    it('survives a syntax error in code, then serves the fix', async function () {
      const before = edit(root, 'packages/lib/format/internal/pad.ts', (text) => text.replace('export function pad', 'export function pad(('));
      try {
        const format = moduleOf(await live.state(), '@acme/lib/format')!;
        expect(format.status).to.equal('invalid');
        const problem = findDiagnostic(format.diagnostics, 'BUNDLE_ERROR');
        expect(problem.file).to.equal('packages/lib/format/internal/pad.ts');
        expect(problem.line).to.equal(1);
        expectError(await live.get(`/m/@acme/lib@1.2.0/modules/format?${DEV}`), { status: 422, code: 'BUILD_FAILED', mentions: ['@acme/lib/format'], diagnostics: true });
      } finally {
        write(root, 'packages/lib/format/internal/pad.ts', before);
      }
      const fixed = await live.get(`/m/@acme/lib@1.2.0/modules/format?${DEV}`);
      expect(fixed.status).to.equal(200);
      expect(fixed.text).to.include('LIB_PAD_MARKER');
    });
  });
});

describe('editing the workspace with no file watcher', function () {
  // Without the watcher, only the check before answering can see an edit: these prove it.
  let quiet: Awaited<ReturnType<typeof watchedService>>;
  before(async function () {
    quiet = await watchedService({ watch: false });
  });
  after(async function () {
    await quiet?.service.close();
  });
  afterEach(function () {
    quiet.expectNoDefect();
  });

  it('serves a code edit at the very next request, edit after edit', async function () {
    const before = readText(quiet.root, 'packages/lib/format/internal/pad.ts');
    for (let round = 1; round <= 5; round += 1) {
      write(quiet.root, 'packages/lib/format/internal/pad.ts', before.replace('LIB_PAD_MARKER', `PAD_MARKER_${round}`));
      const code = await quiet.get(`/m/@acme/lib@1.2.0/modules/format?${DEV}`);
      expect(code.text, `round ${round}`).to.include(`PAD_MARKER_${round}`);
      expect(code.text, `round ${round}`).not.to.include(`PAD_MARKER_${round - 1}`);
    }
    write(quiet.root, 'packages/lib/format/internal/pad.ts', before);
  });

  it('lists a new manifest-only module in the very next /state', async function () {
    write(quiet.root, 'packages/app/extra/index.ts', 'export const extra = 1;\n');
    write(quiet.root, 'packages/app/extra/module.json', '{"entry":"index.ts"}\n');
    const extra = moduleOf(await quiet.state(), '@acme/app/extra');
    expect(extra).to.include({ status: 'valid', bundler: 'esbuild' });
    expect(extra!.platforms).to.deep.equal(['web']);
  });

  it('answers the new version of an edited package.json at once', async function () {
    editJson(quiet.root, 'packages/app/package.json', (json) => (json.version = '1.0.1'));
    expectError(await quiet.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`), { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: ['1.0.1'] });
    expect((await quiet.get(`/m/@acme/app@1.0.1/modules/main?${DEV}`)).status).to.equal(200);
  });
});
