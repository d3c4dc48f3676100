// `core dist` on real workspaces: the files it writes, core-distribution.json, the manifests
// it leaves alone, and the exit code and report of the command line.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { distribute, type DistributionProgress } from '../../src/dist/distribute.js';
import type { DistributionManifest } from '../../src/dist/distribution-manifest.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { TEST_FIXTURES_DIR, tempWorkspace } from '../helpers/workspace.js';
import { sharedLinksWorkspace } from '../helpers/shared-links-workspace.js';
import { installedWorkspace } from './installed.js';
import { runCore } from './run-core.js';

const APP = '@acme/app@1.0.0';
const LIB = '@acme/lib@1.2.0';
const readManifest = (out: string): DistributionManifest => JSON.parse(fs.readFileSync(path.join(out, 'core-distribution.json'), 'utf8'));

// Every file under `dir`, relative, with forward slashes.
function listFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((entry) => fs.statSync(path.join(dir, entry)).isFile())
    .map((entry) => entry.split(path.sep).join('/'))
    .sort();
}

describe('distribute', () => {
  describe('on the basic fixture', () => {
    let root: string;
    let out: string;
    let manifests: Record<string, Buffer>;
    let events: DistributionProgress[];
    let result: Awaited<ReturnType<typeof distribute>>;

    before(async () => {
      root = installedWorkspace({}, path.join(TEST_FIXTURES_DIR, 'basic'));
      out = path.join(root, 'dist');
      manifests = Object.fromEntries(['core.json', 'packages/app/package.json', 'packages/lib/package.json', 'packages/app/main/module.json'].map((rel) => [rel, fs.readFileSync(path.join(root, rel))]));
      events = [];
      result = await distribute({ root, out, parallelism: 2, onProgress: (event) => events.push(event) });
    });

    it('writes code, stylesheets and declared assets of every module, and core-distribution.json', () => {
      expect(result.ok).to.equal(true);
      expect(listFiles(out)).to.deep.equal([
        `${APP}/assets/main/logo.svg`,
        `${APP}/modules/main.js`,
        `${APP}/modules/templates.js`,
        `${APP}/styles/main.css`,
        `${LIB}/assets/widgets/badge/star.svg`,
        `${LIB}/modules/format.js`,
        `${LIB}/modules/server.js`,
        `${LIB}/modules/widgets/badge.js`,
        'core-distribution.json',
        'index.html',
      ]);
    });

    it('writes production code: minified, no source map, bare imports kept, assets addressed relatively', () => {
      const code = fs.readFileSync(path.join(out, APP, 'modules/main.js'), 'utf8');
      expect(code).not.to.include('sourceMappingURL');
      expect(code).to.match(/from"@acme\/lib\/format"/);
      expect(code).to.include('new URL("../assets/main/logo.svg",import.meta.url)');
      expect(code.trim().split('\n')).to.have.length(1);
      expect(fs.readFileSync(path.join(out, APP, 'styles/main.css'), 'utf8').trim()).to.equal('.core-probe{color:#010203;display:block}');
      expect(fs.readFileSync(path.join(out, APP, 'assets/main/logo.svg'))).to.deep.equal(fs.readFileSync(path.join(root, 'packages/app/main/logo.svg')));
    });

    it('builds node-only modules for Node.js', () => {
      expect(fs.readFileSync(path.join(out, LIB, 'modules/server.js'), 'utf8')).to.match(/from"node:path"/);
      expect(readManifest(out).modules.find((m) => m.specifier === '@acme/lib/server')).to.include({ target: 'node' });
    });

    it('lists every written file in core-distribution.json with the hash and size of its content', () => {
      const manifest = readManifest(out);
      expect(manifest.outputs.map((o) => o.path)).to.deep.equal(listFiles(out).filter((file) => file !== 'core-distribution.json' && file !== 'index.html'));
      for (const output of manifest.outputs) {
        const content = fs.readFileSync(path.join(out, output.path));
        expect(output.hash, output.path).to.equal(contentHash(content));
        expect(output.size, output.path).to.equal(content.byteLength);
      }
      expect(manifest).to.deep.equal(result.manifest);
    });

    it('holds the import map of the browser modules, relative to the output directory', () => {
      expect(readManifest(out).importMap.imports).to.deep.equal({
        '@acme/app/main': `./${APP}/modules/main.js`,
        '@acme/app/templates': `./${APP}/modules/templates.js`,
        '@acme/lib/format': `./${LIB}/modules/format.js`,
        '@acme/lib/widgets/badge': `./${LIB}/modules/widgets/badge.js`,
      });
      expect(readManifest(out).external).to.deep.equal([{ specifier: 'lit', package: 'lit', range: '3.1.0', importedBy: ['@acme/app/templates'] }]);
    });

    it('leaves every manifest byte-identical', () => {
      for (const [rel, bytes] of Object.entries(manifests)) expect(fs.readFileSync(path.join(root, rel)).equals(bytes), rel).to.equal(true);
    });

    it('reports each package once, when its last module is done', () => {
      const packages = events.filter((e) => e.type === 'package.done').map((e) => (e.type === 'package.done' ? e.summary : null));
      expect(packages.sort((a, b) => a!.name.localeCompare(b!.name))).to.deep.equal([
        { name: '@acme/app', version: '1.0.0', written: 2, invalid: 0, files: 4, bytes: result.manifest.outputs.filter((o) => o.path.startsWith(APP)).reduce((s, o) => s + o.size, 0) },
        { name: '@acme/lib', version: '1.2.0', written: 3, invalid: 0, files: 4, bytes: result.manifest.outputs.filter((o) => o.path.startsWith(LIB)).reduce((s, o) => s + o.size, 0) },
      ]);
      expect(events.filter((e) => e.type === 'module.done').map((e) => (e.type === 'module.done' ? e.done : 0))).to.deep.equal([1, 2, 3, 4, 5]);
    });

    it('removes on the next run only the files the previous manifest listed and this one no longer writes', async () => {
      fs.writeFileSync(path.join(out, 'index.html'), '<!doctype html>');
      const lib = path.join(root, 'packages/lib/package.json');
      fs.writeFileSync(lib, fs.readFileSync(lib, 'utf8').replace('"1.2.0"', '"1.3.0"'));
      const again = await distribute({ root, out, parallelism: 2 });
      expect(again.removed).to.deep.equal([`${LIB}/assets/widgets/badge/star.svg`, `${LIB}/modules/format.js`, `${LIB}/modules/server.js`, `${LIB}/modules/widgets/badge.js`]);
      expect(fs.existsSync(path.join(out, '@acme', 'lib@1.2.0'))).to.equal(false);
      expect(fs.existsSync(path.join(out, '@acme/lib@1.3.0/modules/format.js'))).to.equal(true);
      expect(fs.existsSync(path.join(out, 'index.html'))).to.equal(true);
      expect(readManifest(out).importMap.imports['@acme/lib/format']).to.equal('./@acme/lib@1.3.0/modules/format.js');
    });
  });

  describe("an earlier run's record that no longer says what is there (edited, merged, copied)", () => {
    it('removes a listed file only when it is still the bytes that run wrote, inside the output directory by its real path', async () => {
      const root = installedWorkspace({}, path.join(TEST_FIXTURES_DIR, 'basic'));
      const out = path.join(root, 'dist');
      const elsewhere = tempWorkspace({ 'kept.js': 'export const x = 1;\n', 'changed.js': 'export const y = 2;\n' });
      await distribute({ root, out, parallelism: 2 });
      const listed = (relative: string, content: string) => ({ path: relative, kind: 'code' as const, module: '@acme/lib/old', hash: contentHash(content), size: Buffer.byteLength(content) });
      fs.mkdirSync(path.join(out, 'old'), { recursive: true });
      fs.writeFileSync(path.join(out, 'old/written.js'), 'export const w = 0;\n');
      fs.writeFileSync(path.join(out, 'old/edited.js'), 'export const e = 1; // edited since\n');
      fs.symlinkSync(elsewhere, path.join(out, 'old/link'));
      const record = readManifest(out);
      record.outputs.push(
        listed('old/written.js', 'export const w = 0;\n'),
        listed('old/edited.js', 'export const e = 1;\n'),
        // The right bytes and size, reached through a link leading out of the output directory.
        listed('old/link/kept.js', 'export const x = 1;\n'),
        { ...listed('old/link/changed.js', 'export const y = 2;\n'), size: 999, hash: 'AAAAAAAAAAAAAAAAAAAAAA' },
      );
      fs.writeFileSync(path.join(out, 'core-distribution.json'), JSON.stringify(record));
      const again = await distribute({ root, out, parallelism: 2 });
      expect(again.removed).to.deep.equal(['old/written.js']);
      expect(again.leftChanged).to.deep.equal(['old/edited.js', 'old/link/changed.js', 'old/link/kept.js']);
      expect(fs.readFileSync(path.join(out, 'old/edited.js'), 'utf8')).to.include('edited since');
      expect(fs.readdirSync(elsewhere).sort()).to.deep.equal(['changed.js', 'kept.js']);
    });

    it('replaces an output or the page that has other hard links, never writing through them: a snapshot made with cp -al keeps its bytes', async () => {
      const root = installedWorkspace({}, path.join(TEST_FIXTURES_DIR, 'basic'));
      const out = path.join(root, 'dist');
      await distribute({ root, out, parallelism: 2 });
      const snapshot = tempWorkspace();
      const format = `${LIB}/modules/format.js`;
      const outputs = [format, ...(fs.existsSync(path.join(out, 'index.html')) ? ['index.html'] : [])];
      const before = new Map(outputs.map((relative) => [relative, fs.readFileSync(path.join(out, relative), 'utf8')]));
      for (const relative of outputs) fs.linkSync(path.join(out, relative), path.join(snapshot, relative.replaceAll('/', '_')));
      const lib = path.join(root, 'packages/lib/format');
      const source = fs.readdirSync(lib).find((name) => /^index\.[jt]s$/.test(name))!;
      fs.appendFileSync(path.join(lib, source), '\nexport const addedSince = 42;\n');
      await distribute({ root, out, parallelism: 2 });
      expect(fs.readFileSync(path.join(out, format), 'utf8')).to.include('42');
      for (const relative of outputs) expect(fs.readFileSync(path.join(snapshot, relative.replaceAll('/', '_')), 'utf8'), relative).to.equal(before.get(relative));
    });

    it('writes no output through a link that leads its folder out of the output directory, says which, and exits 1', async () => {
      const root = installedWorkspace({}, path.join(TEST_FIXTURES_DIR, 'basic'));
      const out = path.join(root, 'dist');
      const elsewhere = tempWorkspace({ 'mine.txt': 'the user\'s\n' });
      fs.mkdirSync(path.join(out, '@acme'), { recursive: true });
      fs.symlinkSync(elsewhere, path.join(out, '@acme', 'lib@1.2.0'));
      const result = await distribute({ root, out, parallelism: 2 });
      expect(result.ok).to.equal(false);
      expect(result.outsideOut).to.include(`${LIB}/modules/format.js`);
      expect(fs.readdirSync(elsewhere)).to.deep.equal(['mine.txt']);
      expect(fs.existsSync(path.join(out, APP, 'modules/main.js'))).to.equal(true);
      const run = await runCore(root, ['dist']);
      expect(run.code).to.equal(1);
      expect(run.stderr).to.match(/^core dist: \d+ files not written: a link in dist leads their folders out of it/m);
      expect(fs.readdirSync(elsewhere)).to.deep.equal(['mine.txt']);
    });
  });

  describe("a file at an output's place that no earlier run's record lists with the bytes it has (README \"Distribution: core dist\")", () => {
    it('writes nothing at all when core-distribution.json is there and is no record of core dist, and says so in one line (exit 1)', async () => {
      const root = installedWorkspace({}, path.join(TEST_FIXTURES_DIR, 'basic'));
      const out = path.join(root, 'dist');
      fs.mkdirSync(out);
      fs.writeFileSync(path.join(out, 'core-distribution.json'), '{"my":"config"}\n');
      const result = await distribute({ root, out, parallelism: 2 });
      expect(result.ok).to.equal(false);
      expect(result.wrote).to.equal(false);
      expect(result.occupied?.paths).to.deep.equal(['core-distribution.json']);
      expect(listFiles(out)).to.deep.equal(['core-distribution.json']);
      expect(fs.readFileSync(path.join(out, 'core-distribution.json'), 'utf8')).to.equal('{"my":"config"}\n');
      const run = await runCore(root, ['dist']);
      expect(run.code).to.equal(1);
      expect(run.stderr.trim().split('\n')).to.deep.equal([
        'core dist: nothing written: dist/core-distribution.json is there and is no record of core dist (a file of yours?); move it away, or name another directory with --out',
      ]);
      expect(listFiles(out)).to.deep.equal(['core-distribution.json']);
    });

    it('writes nothing at all when an output\'s place holds a file no earlier run listed, or one changed since, and names it; replaces what the record lists with its bytes', async () => {
      const root = installedWorkspace({}, path.join(TEST_FIXTURES_DIR, 'basic'));
      const out = path.join(root, 'dist');
      const format = `${LIB}/modules/format.js`;
      fs.mkdirSync(path.join(out, LIB, 'modules'), { recursive: true });
      fs.writeFileSync(path.join(out, format), '// hand-written\n');
      const refused = await distribute({ root, out, parallelism: 2 });
      expect(refused.ok).to.equal(false);
      expect(refused.occupied?.paths).to.deep.equal([format]);
      expect(listFiles(out)).to.deep.equal([format]);
      expect(fs.readFileSync(path.join(out, format), 'utf8')).to.equal('// hand-written\n');
      const run = await runCore(root, ['dist']);
      expect(run.code).to.equal(1);
      expect(run.stderr.trim().split('\n')).to.deep.equal([
        `core dist: nothing written: 1 file at an output's place that no earlier core dist wrote, or changed since (no record of it lists those bytes): dist/${format}; move it away, or name another directory with --out`,
      ]);
      // No package line either: they count what is written.
      expect(run.stdout).to.equal('');

      fs.rmSync(path.join(out, format));
      expect((await distribute({ root, out, parallelism: 2 })).ok).to.equal(true);
      // Listed with the bytes it has: replaced by a run whose source changed.
      const source = path.join(root, 'packages/lib/format', fs.readdirSync(path.join(root, 'packages/lib/format')).find((name) => /^index\.[jt]s$/.test(name))!);
      fs.appendFileSync(source, '\nexport const addedSince = 42;\n');
      expect((await distribute({ root, out, parallelism: 2 })).ok).to.equal(true);
      expect(fs.readFileSync(path.join(out, format), 'utf8')).to.include('42');

      // Edited since it was written: kept, and nothing else is written either.
      fs.appendFileSync(path.join(out, format), '// my fix\n');
      fs.appendFileSync(source, '\nexport const addedLater = 43;\n');
      const before = readManifest(out);
      const edited = await distribute({ root, out, parallelism: 2 });
      expect(edited.occupied?.paths).to.deep.equal([format]);
      expect(fs.readFileSync(path.join(out, format), 'utf8')).to.include('// my fix');
      expect(readManifest(out)).to.deep.equal(before);
    });

    it('replaces the page only while it is the bytes the record lists; an edited page is kept, the rest written', async () => {
      const root = installedWorkspace({}, path.join(TEST_FIXTURES_DIR, 'basic'));
      const out = path.join(root, 'dist');
      const first = await distribute({ root, out, parallelism: 2 });
      expect(first.page.written).to.equal(true);
      expect(readManifest(out).page?.hash).to.equal(contentHash(fs.readFileSync(path.join(out, 'index.html'))));
      expect((await distribute({ root, out, parallelism: 2 })).page.written).to.equal(true);
      fs.appendFileSync(path.join(out, 'index.html'), '<!-- mine -->');
      const again = await distribute({ root, out, parallelism: 2 });
      expect(again.ok).to.equal(true);
      expect(again.page).to.deep.equal({ written: false, reason: 'index.html is there and no earlier core dist wrote it, or it changed since' });
      expect(fs.readFileSync(path.join(out, 'index.html'), 'utf8')).to.include('<!-- mine -->');
      expect(readManifest(out).page).to.equal(null);
    });

    it("tells a page an earlier version's record lists without its hash as such: kept, to be removed once, then written", async () => {
      const root = installedWorkspace({}, path.join(TEST_FIXTURES_DIR, 'basic'));
      const out = path.join(root, 'dist');
      await distribute({ root, out, parallelism: 2 });
      const record = readManifest(out);
      const page = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
      // The record an earlier version wrote: the page without its hash and size.
      fs.writeFileSync(path.join(out, 'core-distribution.json'), JSON.stringify({ ...record, page: { path: 'index.html', entry: record.page!.entry } }));
      const again = await distribute({ root, out, parallelism: 2 });
      expect(again.ok).to.equal(true);
      expect(again.page).to.deep.equal({ written: false, reason: "index.html is there, listed by an earlier version's record without its hash, so it cannot be told from a file of yours: remove it once, and the next run writes it" });
      expect(fs.readFileSync(path.join(out, 'index.html'), 'utf8')).to.equal(page);
      fs.rmSync(path.join(out, 'index.html'));
      expect((await distribute({ root, out, parallelism: 2 })).page.written).to.equal(true);
    });

    it("names a directory at an output's place as a directory, and a file an earlier version's record lists without its hash as that version's", async () => {
      const root = installedWorkspace({}, path.join(TEST_FIXTURES_DIR, 'basic'));
      const out = path.join(root, 'dist');
      await distribute({ root, out, parallelism: 2 });
      const format = `${LIB}/modules/format.js`;
      const badge = `${LIB}/modules/widgets/badge.js`;
      const record = readManifest(out);
      const outputs = record.outputs.map((output) => (output.path === format ? { path: output.path, kind: output.kind, module: output.module } : output));
      fs.writeFileSync(path.join(out, 'core-distribution.json'), JSON.stringify({ ...record, outputs }));
      fs.rmSync(path.join(out, badge));
      fs.mkdirSync(path.join(out, badge));
      const run = await runCore(root, ['dist']);
      expect(run.code).to.equal(1);
      expect(run.stderr.trim().split('\n')).to.deep.equal([
        `core dist: nothing written: a directory at an output's place: dist/${badge}; 1 file an earlier version of core dist wrote, whose record lists it without a hash, so it cannot be told from a file of yours (remove it once): dist/${format}; move them away, or name another directory with --out`,
      ]);
    });
  });

  it('never copies a declared asset that is a link leaving its package, and names the module invalid', async () => {
    const outside = tempWorkspace({ 'secret.svg': '<svg>secret</svg>' });
    const root = installedWorkspace({
      'core.json': JSON.stringify({ packages: ['app'] }),
      'app/package.json': JSON.stringify({ name: '@t/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'app/main/module.json': JSON.stringify({ assets: ['logo.svg'] }),
      'app/main/index.ts': "import logo from './logo.svg';\nexport const address = logo;\n",
    });
    fs.symlinkSync(path.join(outside, 'secret.svg'), path.join(root, 'app/main/logo.svg'));
    const out = path.join(root, 'dist');
    const result = await distribute({ root, out });
    expect(result.ok).to.equal(false);
    // Told by the workspace's read, as `/state` tells it (README "Files that are not files"): never built.
    expect(result.invalid.map((i) => [i.module.specifier, i.diagnostics.map((d) => [d.kind, d.file, d.message])])).to.deep.equal([
      ['@t/app/main', [['MANIFEST_INVALID', 'app/main/module.json', 'app/main/module.json: "assets" declares "logo.svg", but app/main/logo.svg is a symbolic link leading out of the workspace (not followed): make it lead to a regular file of its package or remove it from "assets"']]],
    ]);
    expect(listFiles(out)).to.deep.equal(['core-distribution.json']);
  });

  // `core run` judges an address under /m/ naming another module's declared asset whose file is
  // gone as the 404 its fetch answers (README "Workspaces"); core dist judges it alike.
  it("refuses a module naming another module's declared asset by its address when that asset's file is gone, as core run does", async () => {
    const root = installedWorkspace({
      'core.json': JSON.stringify({ packages: ['app'] }),
      'app/package.json': JSON.stringify({ name: '@t/app', version: '1.0.0', exports: { './main': './main/index.ts', './other': './other/index.ts' } }),
      'app/main/index.ts': "import './main.css';\nexport const data = new URL('/m/@t/app@1.0.0/assets/other/data.json', import.meta.url);\n",
      'app/main/main.css': '.main { background: url(/m/@t/app@1.0.0/assets/other/bg.svg); }\n',
      'app/other/module.json': JSON.stringify({ assets: ['bg.svg', 'data.json'] }),
      'app/other/index.ts': 'export const other = 1;\n',
      'app/other/bg.svg': '<svg/>',
      'app/other/data.json': '{}',
    });
    const out = path.join(root, 'out');
    const there = await distribute({ root, out });
    expect(there.invalid.map((outcome) => outcome.module.specifier)).to.deep.equal([]);
    fs.rmSync(path.join(root, 'app/other/bg.svg'));
    fs.rmSync(path.join(root, 'app/other/data.json'));
    const gone = await distribute({ root, out });
    expect(gone.ok).to.equal(false);
    const main = gone.invalid.find((outcome) => outcome.module.specifier === '@t/app/main');
    const said = [...(main?.diagnostics ?? [])].sort((a, b) => a.file!.localeCompare(b.file!));
    expect(said.map((d) => [d.kind, d.file, d.line])).to.deep.equal([
      ['BUNDLE_ERROR', 'app/main/index.ts', 2],
      ['BUNDLE_ERROR', 'app/main/main.css', 1],
    ]);
    expect(said[0]!.message).to.include('the declared asset "data.json" of @t/app/other, but app/other/data.json is missing');
    expect(said[1]!.message).to.include('the declared asset "bg.svg" of @t/app/other, but app/other/bg.svg is missing');
    expect(fs.existsSync(path.join(out, '@t/app@1.0.0/modules/main.js'))).to.equal(false);
  });

  it('writes the file a deep import of a package without exports names as a module, and one it imports deeply in turn', async () => {
    const root = installedWorkspace({
      'core.json': JSON.stringify({ packages: ['app', 'open', 'other'] }),
      'app/package.json': JSON.stringify({ name: '@t/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@t/open': '*' } }),
      'app/main/index.ts': "import { filled } from '@t/open/button/filled-button.js';\nexport const app = filled;\n",
      'open/package.json': JSON.stringify({ name: '@t/open', version: '1.0.0', main: 'index.js', dependencies: { '@t/other': '*' } }),
      'open/index.ts': 'export const root = 1;\n',
      'open/button/filled-button.ts': "import { ripple } from '@t/other/ripple.js';\nexport const filled = `filled-${ripple}`;\n",
      'other/package.json': JSON.stringify({ name: '@t/other', version: '1.0.0' }),
      'other/ripple.js': "export const ripple = 'ripple';\n",
    });
    const result = await distribute({ root, out: path.join(root, 'out') });
    expect(result.invalid.map((i) => [i.module.specifier, i.diagnostics.map((d) => d.message)])).to.deep.equal([]);
    expect(Object.keys(result.manifest.importMap.imports)).to.deep.equal(['@t/app/main', '@t/open', '@t/open/button/filled-button.js', '@t/other/ripple.js']);
    expect(fs.readFileSync(path.join(root, 'out/@t/open@1.0.0/modules/button/filled-button.js.js'), 'utf8')).to.include('@t/other/ripple.js');
  });

  it('reports a broken package.json as a workspace problem and still writes the other packages', async () => {
    const root = installedWorkspace({
      'core.json': JSON.stringify({ packages: ['good', 'bad'] }),
      'good/package.json': JSON.stringify({ name: '@t/good', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'good/main/index.ts': 'export const good = true;\n',
      'bad/package.json': '{"name": "@t/bad",',
    });
    const result = await distribute({ root, out: path.join(root, 'out') });
    expect(result.ok).to.equal(false);
    expect(result.workspaceDiagnostics.map((d) => [d.kind, d.file])).to.deep.equal([['MANIFEST_INVALID', 'bad/package.json']]);
    expect(Object.keys(result.manifest.importMap.imports)).to.deep.equal(['@t/good/main']);
    expect(fs.existsSync(path.join(root, 'out/@t/good@1.0.0/modules/main.js'))).to.equal(true);
  });

  it('writes no page for a valid entry that imports, through a valid module, one that was not written, and says which', async () => {
    const root = installedWorkspace({
      'core.json': JSON.stringify({ packages: ['lib', 'app'], preview: '@t/app/main' }),
      'lib/package.json': JSON.stringify({ name: '@t/lib', version: '1.0.0', exports: { './middle': './middle.ts', './broken': './broken.ts' } }),
      'lib/middle.ts': "export { broken } from '@t/lib/broken';\n",
      'lib/broken.ts': "import { gone } from './gone.js';\nexport const broken = gone;\n",
      'app/package.json': JSON.stringify({ name: '@t/app', version: '1.0.0', exports: { './main': './main.ts' }, dependencies: { '@t/lib': '1.0.0' } }),
      'app/main.ts': "import { broken } from '@t/lib/middle';\ndocument.body.textContent = String(broken);\n",
    });
    const out = path.join(root, 'out');
    const result = await distribute({ root, out });
    expect(result.invalid.map((outcome) => outcome.module.specifier)).to.deep.equal(['@t/lib/broken']);
    expect(Object.keys(result.manifest.importMap.imports)).to.have.members(['@t/app/main', '@t/lib/middle']);
    expect(result.page).to.deep.equal({ written: false, reason: 'the preview entry @t/app/main imports @t/lib/broken, which was not written' });
    expect(fs.existsSync(path.join(out, 'index.html'))).to.equal(false);
  });
});

describe('core dist', () => {
  it('writes into dist/ of the workspace by default and exits 0, one plain line per package', async () => {
    const root = tempWorkspace({}, path.join(TEST_FIXTURES_DIR, 'basic'));
    const run = await runCore(root, ['dist']);
    expect(run.code, run.stderr).to.equal(0);
    expect(fs.existsSync(path.join(root, 'dist/core-distribution.json'))).to.equal(true);
    const lines = run.stdout.trim().split('\n');
    expect(lines.filter((line) => line.startsWith('✓')).sort()).to.deep.equal([
      `✓ ${APP}  2 modules, 4 files, ${formatted(root, APP)}`,
      `✓ ${LIB}  3 modules, 4 files, ${formatted(root, LIB)}`,
    ]);
    expect(lines.at(-2)).to.match(/^wrote 5 modules \(8 files, .+\) and core-distribution\.json to dist$/);
    expect(lines.at(-1)).to.equal('wrote the page dist/index.html for @acme/app/main: serve dist with any static file server');
    expect(run.stdout).not.to.include('\x1b');
    expect(run.stdout).not.to.include('\r');
  });

  it('writes every module and exits 0 under a selection naming a package the workspace no longer has, telling it on stderr', async () => {
    const root = tempWorkspace({ '.core/selection.json': '{"packages":["@acme/renamed"]}\n' }, path.join(TEST_FIXTURES_DIR, 'basic'));
    const run = await runCore(root, ['dist']);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.match(/^core dist: every module was written whatever the selection says: .*\.core\/selection\.json.*@acme\/renamed/m);
    expect(readManifest(path.join(root, 'dist')).invalid).to.deep.equal([]);
    expect(run.stdout).to.include('wrote 5 modules');
  });

  it('exits 1 on the errors fixture, naming every invalid module with its diagnostics, and writes the valid ones', async () => {
    const root = tempWorkspace({}, path.join(TEST_FIXTURES_DIR, 'errors'));
    const out = tempWorkspace();
    const run = await runCore(root, ['dist', '--out', out]);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.include('4 modules are invalid');
    for (const [module, kind] of [
      ['@bad/app/undeclared', 'DEPENDENCY_NOT_DECLARED'],
      ['@bad/app/incompatible', 'DEPENDENCY_INCOMPATIBLE'],
      ['@bad/app/builtin', 'PREVIEW_BUILTIN'],
      ['@bad/app/badcss', 'BUNDLE_ERROR packages/app/badcss/styles.css:1:9'],
    ]) {
      expect(run.stderr).to.match(new RegExp(`\\n  ${module}\\n    ${kind}`), `${module} with ${kind}`);
    }
    // Each diagnostic ends with the remedy of its kind (README "Error codes").
    expect(run.stderr).to.include('(declare it in `dependencies` of the importing package)');
    const manifest = readManifest(out);
    expect(Object.keys(manifest.importMap.imports)).to.deep.equal(['@bad/app/ok', '@bad/lib/util', '@bad/old/x']);
    expect(manifest.invalid.map((i) => i.specifier)).to.deep.equal(['@bad/app/badcss', '@bad/app/builtin', '@bad/app/incompatible', '@bad/app/undeclared']);
    expect(listFiles(out)).to.deep.equal(['@bad/app@1.0.0/modules/ok.js', '@bad/lib@1.0.0/modules/util.js', '@bad/old@1.0.0/modules/x.js', 'core-distribution.json']);
  });

  it("prints each package's line after the link check: a module it takes back is counted invalid, not written, as the files left say", async () => {
    const root = tempWorkspace({
      'core.json': JSON.stringify({ packages: ['lib', 'app'] }),
      'lib/package.json': JSON.stringify({ name: '@t/lib', version: '1.0.0', type: 'module', exports: { './util': './util.ts' } }),
      'lib/util.ts': "export const kept = 'kept';\n",
      'app/package.json': JSON.stringify({ name: '@t/app', version: '1.0.0', type: 'module', exports: { './fine': './fine.ts', './main': './main.ts' }, dependencies: { '@t/lib': '1.0.0' } }),
      'app/fine.ts': "import { kept } from '@t/lib/util';\ndocument.body.textContent = kept;\n",
      'app/main.ts': "import { gone } from '@t/lib/util';\ndocument.body.textContent = String(gone);\n",
    });
    const run = await runCore(root, ['dist']);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.match(/\n  @t\/app\/main\n    BUNDLE_ERROR app\/main\.ts:1:\d+: @t\/lib\/util does not export "gone"/);
    const lines = run.stdout.trim().split('\n');
    expect(lines.filter((line) => /^[✓✗] /.test(line)).sort()).to.deep.equal([`✓ @t/lib@1.0.0  1 module, 1 file, ${formatted(root, '@t/lib@1.0.0')}`, `✗ @t/app@1.0.0  1 module, 1 file, ${formatted(root, '@t/app@1.0.0')}, 1 invalid`].sort());
    expect(listFiles(path.join(root, 'dist/@t/app@1.0.0'))).to.deep.equal(['modules/fine.js']);
    expect(lines.filter((line) => line.startsWith('wrote ') && !line.startsWith('wrote the page')).map((line) => line.replace(/, [^,]+\) and/, ') and'))).to.deep.equal(['wrote 2 modules (2 files) and core-distribution.json to dist']);
  });

  it('judges names reached through shared files as /state does (README "Shared files"): through them a name given links, one missing is refused at its import', async () => {
    const root = sharedLinksWorkspace();
    const valid = await runCore(root, ['dist', '--out', 'valid']);
    expect([valid.code, valid.stderr]).to.deep.equal([0, '']);
    expect(readManifest(path.join(root, 'valid')).importMap.imports).to.include.keys('@s/app/main', '@s/lib/.shared/src/x.ts', '@s/lib/.shared/src/leaf.ts');
    fs.writeFileSync(path.join(root, 'packages/app/main.ts'), "import { x, missing } from '@s/lib/star';\nimport { gone } from '@s/lib/deep';\ndocument.body.dataset.result = [x, missing, gone].join(',');\n");
    const refused = await runCore(root, ['dist', '--out', 'refused']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/\n  @s\/app\/main\n    BUNDLE_ERROR packages\/app\/main\.ts:1:\d+: @s\/lib\/star does not export "missing"/);
    expect(refused.stderr).to.match(/\n    BUNDLE_ERROR packages\/app\/main\.ts:2:\d+: @s\/lib\/deep does not export "gone"/);
  });

  it('refuses a name a module imports from a shared file that does not export it at that import, as written (`\'./x\'`)', async () => {
    const root = sharedLinksWorkspace();
    fs.writeFileSync(path.join(root, 'packages/lib/src/user.ts'), "import { leaf } from './mid';\nimport { x, gone } from './x';\nexport const user = leaf + x + gone;\n");
    const refused = await runCore(root, ['dist', '--out', 'refused']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/\n    BUNDLE_ERROR packages\/lib\/src\/user\.ts:2:25: src\/x\.ts, a file several modules of @s\/lib import/);
  });

  it('writes nothing, not even the output directory, when core.json is broken, and says only what is wrong', async () => {
    const root = tempWorkspace({}, path.join(TEST_FIXTURES_DIR, 'basic'));
    fs.writeFileSync(path.join(root, 'core.json'), '{"packages": [');
    const run = await runCore(root, ['dist']);
    expect(run.code).to.equal(1);
    expect(run.stdout).to.equal('');
    expect(run.stderr).to.match(/^core dist: the workspace manifests have problems; the modules they declare were not written:\n  MANIFEST_INVALID core\.json:/);
    expect(fs.existsSync(path.join(root, 'dist'))).to.equal(false);
  });

  it('is wrong usage (exit 2) with a stray argument or outside a workspace', async () => {
    const root = tempWorkspace({}, path.join(TEST_FIXTURES_DIR, 'basic'));
    const stray = await runCore(root, ['dist', 'out']);
    expect(stray.code).to.equal(2);
    expect(stray.stderr).to.include('--out DIR');
    const nowhere = await runCore(tempWorkspace(), ['dist']);
    expect(nowhere.code).to.equal(2);
    expect(nowhere.stderr).to.include('core.json');
  });

  it('prints its help', async () => {
    const help = await runCore(tempWorkspace(), ['dist', '--help']);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.include('Usage: core dist [--out DIR]');
    expect(help.stdout).to.include('core-distribution.json');
  });
});

// The size column of a package line, from what was written.
function formatted(root: string, pkg: string): string {
  const bytes = listFiles(path.join(root, 'dist', pkg)).reduce((sum, file) => sum + fs.statSync(path.join(root, 'dist', pkg, file)).size, 0);
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} kB`;
}

