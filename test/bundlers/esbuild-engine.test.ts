// The esbuild engine: batches, incremental rebuilds, and the stylesheet-only rebuild, which
// must give exactly what a whole build gives.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import type { BundleResult, BundleTarget } from '../../src/bundlers/types.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { esbuildHolds } from '../helpers/esbuild-holds.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

const text = (bytes: Uint8Array | null) => (bytes ? Buffer.from(bytes).toString('utf8') : null);

function moduleFiles(): Record<string, string> {
  return {
    'app/main/index.ts': "import './main.css';\nimport icon from './icon.svg';\nimport { helper } from './helper.ts';\nexport const value = helper(icon);\n",
    'app/main/helper.ts': 'export const helper = (s: string) => s.length;\n',
    'app/main/main.css': "@import './theme.css';\n.main { color: rgb(1, 2, 3); background: url(./icon.svg); }\n",
    'app/main/theme.css': '.theme { color: rgb(9, 9, 9); }\n',
    'app/main/icon.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
    'app/two/index.ts': "import './a.css';\nimport './b.css';\nexport const two = 2;\n",
    'app/two/a.css': '.a { color: red; }\n',
    'app/two/b.css': '.b { color: blue; }\n',
    'app/scoped/index.ts': "import styles from './scoped.module.css';\nexport const name = styles.box;\n",
    'app/scoped/scoped.module.css': '.box { color: green; }\n',
    'app/plain/index.ts': "import './plain.css';\nexport const plain = 1;\n",
    'app/plain/plain.css': '.plain { color: rgb(1, 1, 1); }\n',
    'app/plain/mark.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
    'app/plain/extra.css': '.extra { color: rgb(2, 2, 2); }\n',
  };
}

const target = (name: string, assets: string[] = []): BundleTarget => appTarget(name, { assets });

describe('createEsbuildEngine', () => {
  const MAIN = target('main', ['icon.svg']);
  let root: string;
  let engine: ReturnType<typeof createEsbuildEngine>;
  const write = (relative: string, content: string) => fs.writeFileSync(path.join(root, relative), content);
  // What the service passes: the last build's inputs and the hash of its code, as it recorded them.
  const hint = (last: BundleResult, changed: string[]) => ({ inputs: last.inputs, changed, code: last.code ? contentHash(last.code) : null });

  beforeEach(() => {
    root = tempWorkspace(moduleFiles());
    engine = createEsbuildEngine({ root });
  });
  afterEach(() => engine.dispose());

  // A build left running past dispose() held esbuild's process: stopped then, esbuild printed
  // "all goroutines are asleep - deadlock!" (a service closed while the watcher's edit built).
  for (const call of ['bundle', 'rebuild'] as const) {
    it(`disposed while a ${call} runs, cancels it and waits for it, holding esbuild no more`, async () => {
      const held = esbuildHolds();
      let settled = false;
      const variant = developmentVariant('browser');
      const running = (call === 'bundle' ? engine.bundle([MAIN, target('two')], variant) : engine.rebuild(MAIN, variant)).then(
        () => 'built',
        (error: Error) => error.name,
      );
      void running.then(() => (settled = true));
      await engine.dispose();
      expect(settled, `the ${call} settled before dispose() did`).to.equal(true);
      expect(esbuildHolds(), "esbuild's process held after dispose()").to.equal(held);
      expect(await engine.rebuild(MAIN, variant).then(() => 'built', (error: Error) => error.name), 'a rebuild after dispose()').to.equal('BuildCancelled');
    });
  }

  it('builds several modules in one call, each with its own code and stylesheet', async () => {
    const [main, two] = await engine.bundle([MAIN, target('two')], developmentVariant('browser'));
    expect(text(main!.code)).to.contain('helper');
    expect(text(main!.styles)).to.contain('rgb(1, 2, 3)').and.to.contain('rgb(9, 9, 9)');
    expect(text(two!.styles)).to.contain('.a').and.to.contain('.b');
    expect(text(two!.code)).to.not.contain('helper');
    expect(main!.inputs).to.include.members(['app/main/index.ts', 'app/main/helper.ts', 'app/main/main.css', 'app/main/theme.css', 'app/main/icon.svg']);
  });

  it('says which text placed a stylesheet imported for a value: the hash of the importer as read for its line', async () => {
    const source = "// one line first\nimport sheet from './value.css';\nexport const value = sheet;\n";
    fs.mkdirSync(path.join(root, 'app/value'));
    write('app/value/index.ts', source);
    write('app/value/value.css', '.value { color: rgb(3, 3, 3); }\n');
    const [built] = await engine.bundle([target('value')], developmentVariant('browser'));
    expect(built!.errors.map(({ kind, file, line }) => ({ kind, file, line }))).to.deep.equal([{ kind: 'STYLESHEET_IMPORTED_AS_VALUE', file: 'app/value/index.ts', line: 2 }]);
    expect(built!.placedFrom).to.deep.equal({ 'app/value/index.ts': contentHash(source) });
  });

  for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
    it(`rebuilds a change of stylesheets alone, to the bytes a whole build gives (${variant.env})`, async () => {
      const first = await engine.rebuild(MAIN, variant);
      write('app/main/theme.css', '.theme { color: rgb(7, 7, 7); }\n');
      const styled = await engine.rebuild(MAIN, variant, undefined, hint(first, ['app/main/theme.css']));
      // The code output is the very one of the last build: it was not built again (minified, it is; a later test says why).
      if (!variant.min) expect(styled.code).to.equal(first.code);
      const whole = (await createEsbuildEngine({ root }).bundle([MAIN], variant))[0]!;
      expect(text(styled.styles)).to.equal(text(whole.styles));
      expect(text(styled.code)).to.equal(text(whole.code));
      expect(styled.inputs).to.deep.equal(whole.inputs);
    });
  }

  for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
    it(`rebuilds a stylesheet that imports nothing to the bytes and warnings a whole build gives, through every kind of sheet, also once it imports an asset or another sheet, and again without (${variant.env})`, async () => {
      const PLAIN = target('plain', ['mark.svg']);
      let last = await engine.rebuild(PLAIN, variant);
      const whole = async () => (await createEsbuildEngine({ root }).bundle([PLAIN], variant))[0]!;
      const sheets = [
        '.plain { color: rgb(3, 3, 3); }\n',
        // A declared asset: the plugin rewrites it to its address; without the plugin esbuild has no loader for it.
        '.plain { background: url(./mark.svg); }\n',
        '.plain { color: rgb(4, 4, 4); }\n',
        "@import './extra.css';\n.plain { color: rgb(5, 5, 5); }\n",
        '.plain { color: rgb(6, 6, 6); }\n',
        // A sheet esbuild builds with warnings, then without: its warnings come and go with it.
        '.plain { color red; }\n',
        // What a build prints otherwise than a transform would on its own: an @charset above the
        // first line naming the file, legal comments at the end; and what it lowers or keeps.
        '@charset "utf-8";\n.plain::before { content: "é → ☃"; }\n',
        '/*! a licence */\n.plain { color: rgb(8, 8, 8); }\n/*! another */\n',
        '.plain { color: rgb(1, 0, 0); & .inner { color: rgb(0, 1, 0); } }\n',
        '@layer base, theme;\n@layer theme { .plain { color: rgb(0, 0, 1); } }\n@media (min-width: 10px) { .plain { inset: 0; } }\n',
        '.plain::before { content: "url(not an import)"; }\n',
        '',
        '\uFEFF.plain { color: rgb(2, 2, 2); }\n',
        '.plain { color: rgb(7, 7, 7); }\n',
        // An undeclared asset: the plugin's error, not esbuild's missing loader.
        '.plain { background: url(./missing.png); }\n',
      ];
      const warnings = (result: BundleResult) => (result.warnings ?? []).map((warning) => `${warning.file}:${warning.line}: ${warning.message}`).sort();
      let warned = false;
      for (const sheet of sheets) {
        write('app/plain/plain.css', sheet);
        const next = await engine.rebuild(PLAIN, variant, undefined, hint(last, ['app/plain/plain.css']));
        const expected = await whole();
        expect(text(next.styles), sheet).to.equal(text(expected.styles));
        expect(next.inputs, sheet).to.deep.equal(expected.inputs);
        expect(next.errors.map((error) => error.message), sheet).to.deep.equal(expected.errors.map((error) => error.message));
        expect(warnings(next), sheet).to.deep.equal(warnings(expected));
        warned ||= warnings(next).length > 0;
        expect(text(next.code), sheet).to.equal(text(expected.code));
        if (next.code) {
          if (!variant.min) expect(next.code, sheet).to.equal(last.code);
          last = next;
        }
      }
      expect(warned, 'a sheet with warnings was among them').to.equal(true);
      expect(text(last.styles)).to.match(/rgb\(7, 7, 7\)|#070707/);
      const [asset] = sheets.slice(1);
      write('app/plain/plain.css', asset!);
      const withAsset = await engine.rebuild(PLAIN, variant, undefined, hint(last, ['app/plain/plain.css']));
      expect(text(withAsset.styles)).to.match(/url\(\.\.\/assets\/plain\/mark\.svg\)/);
    });
  }

  it('compiles a stylesheet that imports nothing from the bytes the hint gives, without reading it again', async () => {
    const PLAIN = target('plain');
    const first = await engine.rebuild(PLAIN, developmentVariant('browser'));
    // The service hashed these bytes; the disk has moved on since, and its next look will tell.
    write('app/plain/plain.css', '.plain { color: rgb(5, 5, 5); }\n');
    const given = Buffer.from('.plain { color: rgb(4, 4, 4); }\n');
    const styled = await engine.rebuild(PLAIN, developmentVariant('browser'), undefined, { ...hint(first, ['app/plain/plain.css']), contents: { 'app/plain/plain.css': given } });
    expect(styled.code).to.equal(first.code);
    expect(text(styled.styles)).to.contain('rgb(4, 4, 4)').and.not.to.contain('rgb(5, 5, 5)');
  });

  it('drops the warning of a stylesheet fixed by a stylesheet-only rebuild after a whole build that warned about it', async () => {
    const PLAIN = target('plain');
    write('app/plain/plain.css', '.plain { color: rgb(1, 1, 1);\n');
    const broken = await engine.rebuild(PLAIN, developmentVariant('browser'));
    expect(broken.warnings?.map((warning) => warning.file)).to.deep.equal(['app/plain/plain.css']);
    write('app/plain/plain.css', '.plain { color: rgb(1, 1, 1); }\n');
    const fixed = await engine.rebuild(PLAIN, developmentVariant('browser'), undefined, hint(broken, ['app/plain/plain.css']));
    expect(fixed.code, 'rebuilt as a stylesheet alone').to.equal(broken.code);
    expect(fixed.warnings ?? []).to.deep.equal([]);
  });

  it('builds the whole module for a stylesheet edit of a minified variant, whose code names depend on every source, the sheet included', async () => {
    const production = productionVariant('browser');
    write('app/plain/index.ts', "import './plain.css';\nexport function renderSomething(longArgumentName: number) { const localValue = longArgumentName + 3; return localValue * 2; }\n");
    const first = await engine.rebuild(target('plain'), production);
    write('app/plain/plain.css', ".plain { background: url('data:,zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz'); }\n");
    const styled = await engine.rebuild(target('plain'), production, undefined, hint(first, ['app/plain/plain.css']));
    const whole = (await createEsbuildEngine({ root }).bundle([target('plain')], production))[0]!;
    expect(text(whole.code), 'the sheet changed the names').to.not.equal(text(first.code));
    expect(text(styled.code)).to.equal(text(whole.code));
    expect(text(styled.styles)).to.equal(text(whole.styles));
  });

  it('reports a stylesheet that can no longer be read with the diagnostics a fresh start gives, placed at its import', async () => {
    const PLAIN = target('plain');
    const first = await engine.rebuild(PLAIN, developmentVariant('browser'));
    // A directory where the sheet was: what a build can read of it is what it can of an unreadable file.
    fs.rmSync(path.join(root, 'app/plain/plain.css'));
    fs.mkdirSync(path.join(root, 'app/plain/plain.css'));
    const live = await engine.rebuild(PLAIN, developmentVariant('browser'), undefined, hint(first, ['app/plain/plain.css']));
    const fresh = (await createEsbuildEngine({ root }).bundle([PLAIN], developmentVariant('browser')))[0]!;
    expect(fresh.errors).to.have.length(1);
    expect(fresh.errors[0]).to.include({ file: 'app/plain/index.ts', line: 1 });
    expect(live.errors).to.deep.equal(fresh.errors);
    expect(live.inputs).to.deep.equal(fresh.inputs);
  });

  it('builds a changed file of the same size whose mtime was kept old, which a kept esbuild context would take as unchanged', async () => {
    const old = new Date(Date.now() - 60_000);
    const keepingTime = (relative: string, content: string) => {
      write(relative, content);
      fs.utimesSync(path.join(root, relative), old, old);
    };
    keepingTime('app/main/helper.ts', 'export const helper = (s: string) => s.length + 1;\n');
    const first = await engine.rebuild(MAIN, developmentVariant('browser'));
    // `cp -p` of a file of the same size: inode, size and mtime as they were.
    keepingTime('app/main/helper.ts', 'export const helper = (s: string) => s.length + 2;\n');
    const next = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, hint(first, ['app/main/helper.ts']));
    expect(text(next.code)).to.include('s.length + 2');
    keepingTime('app/main/theme.css', '.theme { color: rgb(8, 8, 8); }\n');
    const styled = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, hint(next, ['app/main/theme.css']));
    keepingTime('app/main/theme.css', '.theme { color: rgb(6, 6, 6); }\n');
    const again = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, hint(styled, ['app/main/theme.css']));
    expect(text(again.styles)).to.include('rgb(6, 6, 6)');
  });

  it('rebuilds a stylesheet alone when the service\'s record adds tsconfig files to the inputs the engine reported', async () => {
    const first = await engine.rebuild(MAIN, developmentVariant('browser'));
    write('app/main/theme.css', '.theme { color: rgb(5, 5, 5); }\n');
    const recorded = [...first.inputs, 'tsconfig.json', 'app/tsconfig.json', 'app/main/tsconfig.json'].sort();
    const styled = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, { ...hint(first, ['app/main/theme.css']), inputs: recorded });
    expect(styled.code).to.equal(first.code);
    expect(text(styled.styles)).to.contain('rgb(5, 5, 5)');
    // An extra input that is no JSON file is another build's record: the whole module builds.
    write('app/main/theme.css', '.theme { color: rgb(4, 4, 4); }\n');
    const other = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, { ...hint(styled, ['app/main/theme.css']), inputs: [...styled.inputs, 'app/main/other.ts'] });
    expect(other.code).to.not.equal(styled.code);
  });

  it('follows a stylesheet that stops importing another, and reports a broken one as a failure', async () => {
    const first = await engine.rebuild(MAIN, developmentVariant('browser'));
    write('app/main/main.css', '.main { color: rgb(1, 2, 3); }\n');
    const second = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, hint(first, ['app/main/main.css']));
    expect(second.inputs).to.not.include('app/main/theme.css');
    expect(text(second.styles)).to.not.contain('rgb(9, 9, 9)');
    write('app/main/main.css', "@import './missing.css';\n");
    const broken = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, hint(second, ['app/main/main.css']));
    expect(broken.code).to.equal(null);
    expect(broken.errors[0]).to.include({ kind: 'BUNDLE_ERROR', file: 'app/main/main.css' });
  });

  it('builds the whole module when code changed, or without a hint', async () => {
    const first = await engine.rebuild(MAIN, developmentVariant('browser'));
    write('app/main/helper.ts', 'export const helper = (s: string) => s.length + 1;\n');
    const code = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, hint(first, ['app/main/helper.ts', 'app/main/theme.css']));
    expect(code.code).to.not.equal(first.code);
    expect(text(code.code)).to.contain('s.length + 1');
    const plain = await engine.rebuild(MAIN, developmentVariant('browser'));
    expect(plain.code).to.not.equal(code.code);
  });

  it('builds the whole module when it imports several stylesheets, or a CSS module', async () => {
    const two = target('two');
    const first = await engine.rebuild(two, developmentVariant('browser'));
    write('app/two/b.css', '.b { color: black; }\n');
    const again = await engine.rebuild(two, developmentVariant('browser'), undefined, hint(first, ['app/two/b.css']));
    expect(again.code).to.not.equal(first.code);
    expect(text(again.styles)).to.contain('.a').and.to.contain('black');
    const scoped = target('scoped');
    const before = await engine.rebuild(scoped, developmentVariant('browser'));
    write('app/scoped/scoped.module.css', '.box { color: olive; } .other { color: teal; }\n');
    const after = await engine.rebuild(scoped, developmentVariant('browser'), undefined, hint(before, ['app/scoped/scoped.module.css']));
    expect(after.code).to.not.equal(before.code);
    expect(text(after.styles)).to.contain('olive');
  });

  it('builds the whole module when its inputs are not those of the last build it made', async () => {
    const first = await engine.rebuild(MAIN, developmentVariant('browser'));
    write('app/main/theme.css', '.theme { color: rgb(6, 6, 6); }\n');
    const other = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, { ...hint(first, ['app/main/theme.css']), inputs: ['app/main/index.ts'] });
    expect(other.code).to.not.equal(first.code);
  });
  // Found by the edit storm (seed 489192): a batch build of the module came between its last
  // rebuild and a stylesheet's change, and the stylesheet-only rebuild kept the code of that
  // older rebuild while the service recorded the helper as the batch build had read it.
  it('builds the whole module when a batch build came after the last rebuild, whose code is older', async () => {
    const first = await engine.rebuild(MAIN, developmentVariant('browser'));
    write('app/main/helper.ts', "export const helper = (s: string) => s.length + 'BATCHED';\n");
    const [batched] = await engine.bundle([MAIN, target('two')], developmentVariant('browser'));
    expect(text(batched!.code)).to.contain('BATCHED');
    write('app/main/theme.css', '.theme { color: rgb(3, 3, 3); }\n');
    const styled = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, hint(batched!, ['app/main/theme.css']));
    expect(styled.code).to.not.equal(first.code);
    expect(text(styled.code)).to.contain('BATCHED');
    expect(text(styled.styles)).to.contain('rgb(3, 3, 3)');
  });

  it("keeps a workspace package's bare imports bare where a tsconfig paths entry maps them to its sources, its own and its subpaths", async () => {
    write('tsconfig.json', JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@t/lib': ['lib/src/index.ts'], '@t/lib/*': ['lib/src/*'] } } }));
    fs.mkdirSync(path.join(root, 'lib/src'), { recursive: true });
    write('lib/src/index.ts', "export const lib = 'lib-source-marker';\n");
    write('lib/src/extra.ts', "export const extra = 'extra-source-marker';\n");
    write('app/main/index.ts', "import { lib } from '@t/lib';\nimport { extra } from '@t/lib/extra.ts';\nexport const value = lib + extra;\n");
    const workspace = { key: 'k', packages: ['@t/app', '@t/lib'], entries: { 'app/main/index.ts': '@t/app/main', 'lib/src/index.ts': '@t/lib' } };
    const [main] = await engine.bundle([{ ...MAIN, workspace }], developmentVariant('browser'));
    expect(main!.errors).to.deep.equal([]);
    expect(text(main!.code)).to.match(/from\s*"@t\/lib"/).and.to.match(/from\s*"@t\/lib\/extra\.ts"/);
    expect(text(main!.code)).to.not.contain('source-marker');
  });

  it("keeps another module's entry bare through a tsconfig paths pattern reading as a package name, added while a kept context builds the importer", async () => {
    write('app/main/index.ts', "import { plain } from 'registry';\nexport const value = plain;\n");
    write('app/plain/index.ts', "export const plain = 'plain-source-marker';\n");
    const workspace = { key: 'k', packages: ['@t/app'], entries: { 'app/main/index.ts': '@t/app/main', 'app/plain/index.ts': '@t/app/plain' } };
    // No pattern yet: `registry` is a package from outside the workspace, kept bare.
    const first = await engine.rebuild({ ...MAIN, workspace }, developmentVariant('browser'));
    expect(text(first.code)).to.match(/from\s*"registry"/);
    write('tsconfig.json', JSON.stringify({ compilerOptions: { paths: { registry: ['./app/plain'] } } }));
    const again = await engine.rebuild({ ...MAIN, workspace }, developmentVariant('browser'), undefined, hint(first, ['tsconfig.json']));
    expect(again.errors).to.deep.equal([]);
    expect(text(again.code)).to.match(/from\s*"@t\/app\/plain"/).and.to.not.contain('source-marker');
  });

  it("keeps another module's entry bare through a symbolic link to its folder made while a kept context builds the importer", async () => {
    write('app/plain/index.ts', "export const plain = 'plain-source-marker';\n");
    const workspace = { key: 'k', packages: ['@t/app'], entries: { 'app/main/index.ts': '@t/app/main', 'app/plain/index.ts': '@t/app/plain' }, manifests: { '@t/app': 'app/package.json' } };
    const first = await engine.rebuild({ ...MAIN, workspace }, developmentVariant('browser'));
    expect(first.errors).to.deep.equal([]);
    fs.symlinkSync('plain', path.join(root, 'app/alias'));
    write('app/main/index.ts', "import { plain } from '../alias';\nexport const value = plain;\n");
    const again = await engine.rebuild({ ...MAIN, workspace }, developmentVariant('browser'), undefined, hint(first, ['app/main/index.ts']));
    expect(again.errors).to.deep.equal([]);
    expect(text(again.code)).to.match(/from\s*"@t\/app\/plain"/).and.to.not.contain('source-marker');
  });

  it("imports from another module's entry, reached by a relative path from TypeScript, only the values it exports, and takes that entry as an input", async () => {
    write('app/plain/index.ts', "export type { Part };\nclass Part {}\nexport const plain = 1;\nexport const odd = (x: number) => x === -0;\n");
    write('app/main/index.ts', "import { Part, plain } from '../plain/index.js';\nexport { Part } from '../plain/index.js';\nexport const value = (part: Part) => [part, plain];\n");
    const workspace = { key: 'k', packages: ['@t/app'], entries: { 'app/main/index.ts': '@t/app/main', 'app/plain/index.ts': '@t/app/plain' } };
    // A file without a named export list imports as written: esbuild drops an import used as a type only.
    write('app/two/index.ts', "import { Part, plain } from '../plain/index.js';\nexport const two = (part: Part) => [part, plain];\n");
    const [main, plain, two] = await engine.bundle([{ ...MAIN, workspace }, { ...target('plain'), workspace }, { ...target('two'), workspace }], developmentVariant('browser'));
    expect(text(two!.code)).to.match(/^import \{ plain \} from "@t\/app\/plain";$/m).and.to.not.contain('core-crossed');
    expect(two!.inputs).to.not.include('app/plain/index.ts');
    expect(main!.errors).to.deep.equal([]);
    expect(text(main!.code)).to.match(/import \{ odd, plain \} from "@t\/app\/plain"/).and.to.not.match(/\bPart\b[^\n]*from "@t\/app\/plain"/);
    expect(main!.imports.map((record) => `${record.specifier} ${record.file}`)).to.include('@t/app/plain app/main/index.ts');
    expect(main!.inputs).to.include('app/plain/index.ts');
    // Warned about where it is written, never about the other entry's own lines.
    expect(main!.warnings?.map((warning) => `${warning.kind} ${warning.file}:${warning.line}`)).to.deep.equal(['MODULE_BOUNDARY_CROSSED app/main/index.ts:1']);
    expect(plain!.warnings?.map((warning) => `${warning.kind} ${warning.file}:${warning.line}`)).to.deep.equal(['BUNDLE_WARNING app/plain/index.ts:4']);
    // A type the other entry makes a value is imported after the next build.
    write('app/plain/index.ts', "export class Part {}\nexport const plain = 1;\n");
    const again = await engine.rebuild({ ...MAIN, workspace }, developmentVariant('browser'), undefined, hint(main!, ['app/plain/index.ts']));
    expect(text(again.code)).to.match(/import \{ Part, plain \} from "@t\/app\/plain"/);
  });

  it("takes the files another module's entry re-exports from as inputs of a TypeScript importer: a type one of them makes a value is imported after the next build", async () => {
    write('app/plain/part.ts', 'export type Part = { name: string };\n');
    write('app/plain/index.ts', "export * from './part.ts';\nexport const plain = 1;\n");
    write('app/main/index.ts', "export { Part, plain } from '../plain/index.js';\n");
    const workspace = { key: 'k', packages: ['@t/app'], entries: { 'app/main/index.ts': '@t/app/main', 'app/plain/index.ts': '@t/app/plain' } };
    const [main] = await engine.bundle([{ ...MAIN, workspace }, { ...target('plain'), workspace }], developmentVariant('browser'));
    expect(text(main!.code)).to.match(/import \{ plain \} from "@t\/app\/plain"/).and.to.not.match(/\bPart\b/);
    expect(main!.inputs).to.include('app/plain/part.ts');
    // Not a file of its own: never a shared file of the package.
    expect(main!.resolution).to.include('app/plain/part.ts');
    write('app/plain/part.ts', 'export class Part {}\n');
    const again = await engine.rebuild({ ...MAIN, workspace }, developmentVariant('browser'), undefined, hint(main!, ['app/plain/part.ts']));
    expect(text(again.code)).to.match(/import \{ Part, plain \} from "@t\/app\/plain"/);
  });
});
