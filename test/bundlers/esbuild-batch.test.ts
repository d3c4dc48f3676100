// One esbuild build of a batch of modules (src/bundlers/esbuild-batch.ts): the CSS module scripts
// plugin is left out of a batch that imports no stylesheet `with { type: 'css' }`, so its plain
// stylesheet imports never call into JavaScript, and every output is the bytes a build with it gives.
import { expect } from 'chai';
import * as esbuildApi from 'esbuild';
import { collect } from '../../src/bundlers/build-results.js';
import { createBatchBuilds } from '../../src/bundlers/esbuild-batch.js';
import { esbuildOptions } from '../../src/bundlers/esbuild-options.js';
import type { BundleTarget } from '../../src/bundlers/types.js';
import { developmentVariant } from '../../src/workspace/variant.js';
import { countingCssModuleScripts } from '../helpers/counting-options.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

const variant = developmentVariant('browser');
const target = (name: string, assets: string[] = []): BundleTarget => appTarget(name, { assets });
const text = (bytes: Uint8Array | null) => (bytes ? Buffer.from(bytes).toString('utf8') : null);

const countingOptions = (root: string, calls: { count: number }) => countingCssModuleScripts(() => root, variant, calls);

/** What one build with the engine's whole options gives each target. */
async function withEveryPlugin(root: string, targets: BundleTarget[]) {
  const result = await esbuildApi.build(esbuildOptions(root, targets, variant));
  return targets.map((one, index) => collect(root, one, index, result));
}

describe('createBatchBuilds', () => {
  it('builds plain stylesheet imports without a call into JavaScript each, to the same bytes', async () => {
    const root = tempWorkspace({
      'app/a/index.ts': "import './style.css';\nexport const a = 1;\n",
      'app/a/style.css': '.a { color: red; }\n',
      'app/b/index.ts': "import './style.css';\nimport './more.css';\nexport const b = 2;\n",
      'app/b/style.css': '.b { color: blue; }\n',
      'app/b/more.css': "@import './base.css';\n.more { margin: 0; }\n",
      'app/b/base.css': '.base { padding: 0; }\n',
    });
    const targets = [target('a'), target('b')];
    const calls = { count: 0 };
    const results = await createBatchBuilds(root, countingOptions(root, calls)).bundleOnce(targets, variant);
    expect(calls.count, 'calls of the CSS module scripts plugin').to.equal(0);
    const expected = await withEveryPlugin(root, targets);
    expect(results.map((result) => [text(result.code), text(result.styles), result.inputs])).to.deep.equal(expected.map((result) => [text(result.code), text(result.styles), result.inputs]));
    expect(text(results[1]!.styles)).to.include('.base');
  });

  it('builds a batch with a CSS module script with the plugin: a declared sheet kept at its address, an undeclared one refused', async () => {
    const root = tempWorkspace({
      'app/a/index.ts': "import './style.css';\nexport const a = 1;\n",
      'app/a/style.css': '.a { color: red; }\n',
      'app/card/index.ts': "import sheet from './card.css' with { type: 'css' };\nexport const sheets = [sheet];\n",
      'app/card/card.css': ':host { display: block; }\n',
      'app/theme/index.ts': "import theme from '@t/kit/theme.css' with { type: 'css' };\nexport const sheets = [theme];\n",
    });
    const declared = [target('a'), target('card', ['card.css'])];
    const calls = { count: 0 };
    const batch = createBatchBuilds(root, countingOptions(root, calls));
    const [plain, card] = await batch.bundleOnce(declared, variant);
    expect(calls.count).to.be.greaterThan(0);
    expect(text(card!.code)).to.match(/from "\.\.\/assets\/card\/card\.css" with \{ type: "css" \}/);
    expect(text(plain!.styles)).to.include('.a');
    // A bare one builds without the plugin (it stays external): the metafile's attributes say to build again.
    const [theme] = await batch.bundleOnce([target('theme')], variant);
    expect(theme!.code).to.equal(null);
    expect(theme!.errors.map((error) => error.kind)).to.deep.equal(['STYLESHEET_IMPORTED_AS_VALUE']);
  });

  it('says a stylesheet imported for a value only in the module that imports it so, not in another of the batch importing the same sheet', async () => {
    const root = tempWorkspace({
      'app/x.css': '.x { color: red; }\n',
      'app/byvalue/index.ts': "import sheet from '../x.css';\nexport const value = sheet;\n",
      'app/plain/index.ts': "import '../x.css';\nexport const plain = 1;\n",
      'app/other/index.ts': "export const before = 1;\nimport * as sheet from '../x.css';\nexport const value = sheet;\n",
    });
    const results = await createBatchBuilds(root, countingOptions(root, { count: 0 })).bundleOnce([target('byvalue'), target('plain'), target('other')], variant);
    const kinds = results.map((result) => result.errors.map((error) => [error.kind, error.file]));
    expect(kinds).to.deep.equal([[['STYLESHEET_IMPORTED_AS_VALUE', 'app/byvalue/index.ts']], [], [['STYLESHEET_IMPORTED_AS_VALUE', 'app/other/index.ts']]]);
  });

  describe('a batch that fails', () => {
    /** The options of `root`, each call (one esbuild build) recorded with the targets it builds. */
    const recordingOptions = (root: string, builds: string[][]) => {
      const counting = countingOptions(root, { count: 0 });
      return (targets: BundleTarget[], given: unknown, optional?: Parameters<typeof counting>[2]) => {
        builds.push(targets.map((one) => one.subpath));
        return counting(targets, given, optional);
      };
    };
    /** What each target gives built alone, as an edit rebuilds it. */
    const eachAlone = async (root: string, targets: BundleTarget[]) =>
      Promise.all(targets.map(async (one) => (await createBatchBuilds(root, recordingOptions(root, [])).bundleOnce([one], variant))[0]!));
    const outcome = (results: Awaited<ReturnType<typeof eachAlone>>) => results.map((result) => [text(result.code), result.errors.map((error) => [error.kind, error.file, error.line, error.message]), result.inputs]);

    it('builds each module whose own entry holds the error alone at once, not by halving the batch', async () => {
      const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
      const root = tempWorkspace(Object.fromEntries(names.map((name) => [`app/${name}/index.ts`, `export const ok = '${name}';\nexport const broken = ;\n`])));
      const targets = names.map((name) => target(name));
      const builds: string[][] = [];
      const results = await createBatchBuilds(root, recordingOptions(root, builds)).bundleOnce(targets, variant);
      expect(outcome(results)).to.deep.equal(outcome(await eachAlone(root, targets)));
      expect(results.every((result) => result.code === null && result.errors.length === 1)).to.equal(true);
      // The batch (without, then with the CSS module scripts plugin), then each module once alone,
      // a build that records what it read: no build of a half or a quarter of the batch.
      expect(builds.filter((built) => built.length > 1)).to.deep.equal([names, names]);
      expect(builds.length).to.equal(2 + names.length);
    });

    it('still finds an error in a file several modules share by halving, the valid ones built together', async () => {
      const names = ['a', 'b', 'c', 'd', 'e', 'f'];
      const root = tempWorkspace({
        ...Object.fromEntries(names.map((name) => [`app/${name}/index.ts`, `export const ok = '${name}';\n`])),
        'app/b/index.ts': "import { helper } from '../shared/helper.ts';\nexport const b = helper;\n",
        'app/e/index.ts': "import { helper } from '../shared/helper.ts';\nexport const e = helper;\nexport const own = ;\n",
        'app/shared/helper.ts': 'export const helper = ;\n',
      });
      const targets = names.map((name) => target(name));
      const results = await createBatchBuilds(root, recordingOptions(root, [])).bundleOnce(targets, variant);
      expect(outcome(results)).to.deep.equal(outcome(await eachAlone(root, targets)));
      expect(results.map((result) => result.code !== null)).to.deep.equal([true, false, true, true, false, true]);
    });
  });

  // esbuild finds `./Helper` as `helper.ts` by its case-blind listing, fails to read it by the
  // name written ("Cannot read file", which reads like an I/O fault) and says the disk's name in a
  // warning the failure dropped: the error names the case and keeps that hint (README "Bundling real code").
  it('says an import whose case differs from its file names the file on disk, keeping esbuild\'s hint, at the import', async () => {
    const root = tempWorkspace({
      'app/m/index.ts': "import { x } from './Helper';\nexport const y = 'm:' + x;\n",
      'app/m/helper.ts': "export const x = 'lower';\n",
      'app/n/index.ts': 'export const n = 1;\n',
    });
    const results = await createBatchBuilds(root, countingOptions(root, { count: 0 })).bundleOnce([target('m'), target('n')], variant);
    expect(results[1]!.errors).to.deep.equal([]);
    const [error, ...more] = results[0]!.errors;
    expect(more).to.deep.equal([]);
    expect(error).to.include({ kind: 'BUNDLE_ERROR', file: 'app/m/index.ts', line: 1, column: 19 });
    expect(error!.message).to.equal(
      'the import "./Helper" names app/m/Helper.ts, but the file on disk is app/m/helper.ts: the names differ in case, which this file system tells apart; write the import with the file\'s case, or rename the file (esbuild: Use "app/m/helper.ts" instead of "app/m/Helper.ts" to avoid issues with case-sensitive file systems)',
    );
  });

  // esbuild says only "Could not resolve" of a folder's case difference, with no hint: the folder is looked for by case.
  it('says an import whose folder differs in case from the folder on disk names both folders, at the import', async () => {
    const root = tempWorkspace({
      'app/m/index.ts': "import { u } from './Lib/util';\nexport const y = u;\n",
      'app/m/lib/util.ts': 'export const u = 1;\n',
      'app/n/index.ts': "import { u } from './Gone/util';\nexport const y = u;\n",
    });
    const results = await createBatchBuilds(root, countingOptions(root, { count: 0 })).bundleOnce([target('m'), target('n')], variant);
    const [error, ...more] = results[0]!.errors;
    expect(more).to.deep.equal([]);
    expect(error).to.include({ kind: 'BUNDLE_ERROR', file: 'app/m/index.ts', line: 1, column: 19 });
    expect(error!.message).to.equal(
      'the import "./Lib/util" names the folder app/m/Lib, but the folder on disk is app/m/lib: the names differ in case, which this file system tells apart; write the import with the folder\'s case, or rename the folder (esbuild: Could not resolve "./Lib/util")',
    );
    // Renaming the folder builds again.
    expect(results[0]!.inputs).to.include('app/m/');
    // A folder absent in every case is esbuild's own words.
    expect(results[1]!.errors.map((e) => e.message)).to.deep.equal(['Could not resolve "./Gone/util"']);
  });

  // esbuild folds case when it finds and dedups files: with both names on disk an import of
  // either is built from one, and the build cannot succeed. Advice to write the import with the
  // other case would import another module: both files are named instead.
  it('says esbuild cannot tell apart two files, or a file and a folder, whose names differ only in case, naming both', async () => {
    const root = tempWorkspace({
      'app/a/index.ts': "import { u } from './Util';\nimport { l } from './util';\nexport const got = u + l;\n",
      'app/a/util.ts': "export const l = 'lower';\n",
      'app/a/Util.ts': "export const u = 'upper';\n",
      'app/c/index.ts': "import { w } from './Widgets';\nexport const got = w;\n",
      'app/c/Widgets/index.ts': 'export const w = 1;\n',
      'app/c/widgets.ts': 'export const x = 1;\n',
    });
    const results = await createBatchBuilds(root, countingOptions(root, { count: 0 })).bundleOnce([target('a'), target('c')], variant);
    const messages = results.map((result) => result.errors.map((e) => e.message));
    expect(messages[0]).to.have.length(1);
    expect(messages[0]![0]).to.match(/^esbuild cannot tell app\/a\/(util|Util)\.ts and app\/a\/(Util|util)\.ts apart: their names differ only in case/);
    expect(messages[0]![0]).to.include('app/a/util.ts').and.include('app/a/Util.ts').and.not.include("write the import with the file's case");
    expect(messages[1]).to.have.length(1);
    expect(messages[1]![0]).to.match(/^esbuild cannot tell app\/c\/widgets\.ts and app\/c\/Widgets\/ apart: their names differ only in case/);
    expect(messages[1]![0]).to.not.include("write the import with the file's case");
    expect(results[1]!.errors[0]).to.include({ file: 'app/c/index.ts', line: 1, column: 19 });
  });

  // Two folders differing only in case, each holding the file imported (probe52 P11): esbuild
  // gives no hint, builds both imports from one folder's file, and names that file alone.
  it('says esbuild cannot tell apart two folders whose names differ only in case, naming both, where the file imported is in each', async () => {
    const root = tempWorkspace({
      'app/b/index.ts': "import { u } from './src/Lib/util';\nimport { l } from './src/lib/util';\nexport const got = u + l;\n",
      'app/b/src/Lib/util.ts': "export const u = 'upper';\n",
      'app/b/src/lib/util.ts': "export const l = 'lower';\n",
      // A file only one of the folders holds builds.
      'app/a/index.ts': "import { u } from './Lib/util';\nexport const got = u;\n",
      'app/a/Lib/util.ts': "export const u = 'upper';\n",
      'app/a/lib/other.ts': 'export const o = 1;\n',
    });
    const results = await createBatchBuilds(root, countingOptions(root, { count: 0 })).bundleOnce([target('b'), target('a')], variant);
    const [error, ...more] = results[0]!.errors;
    expect(more).to.deep.equal([]);
    expect(error).to.include({ kind: 'BUNDLE_ERROR', file: 'app/b/index.ts' });
    expect(error!.message).to.match(/^esbuild cannot tell the folders app\/b\/src\/(Lib|lib)\/ and app\/b\/src\/(lib|Lib)\/ apart: their names differ only in case/);
    expect(error!.message).to.include('app/b/src/Lib/').and.include('app/b/src/lib/').and.include('the build cannot succeed while both are there').and.include('(esbuild: No matching export in');
    // Renaming either folder builds again.
    expect(results[0]!.inputs).to.include('app/b/src/');
    expect(results[1]!.errors).to.deep.equal([]);
  });

  // Imported for their side effects, both build from one folder's file, with no hint from esbuild:
  // the module would be valid while the other's code never runs.
  it('says a build that succeeds importing files of two folders differing only in case holds the code of one only, naming both folders', async () => {
    const root = tempWorkspace({
      'app/b/index.ts': "import './src/Lib/util';\nimport './src/lib/util.js';\nexport const b = 1;\n",
      'app/b/src/Lib/util.ts': "(globalThis as any).marks = ['upper'];\n",
      'app/b/src/lib/util.ts': "(globalThis as any).marks = ['lower'];\n",
      // One folder's file alone, the other folder there too: built as written.
      'app/a/index.ts': "import './src/lib/util';\nexport const a = 1;\n",
      'app/a/src/Lib/util.ts': "(globalThis as any).marks = ['upper'];\n",
      'app/a/src/lib/util.ts': "(globalThis as any).marks = ['lower'];\n",
    });
    const results = await createBatchBuilds(root, countingOptions(root, { count: 0 })).bundleOnce([target('b'), target('a')], variant);
    const code = text(results[0]!.code) ?? '';
    expect([code.includes('upper'), code.includes('lower')].filter(Boolean)).to.have.length(1);
    const [error, ...more] = results[0]!.errors;
    expect(more).to.deep.equal([]);
    expect(error).to.include({ kind: 'BUNDLE_ERROR', file: 'app/b/index.ts' });
    expect(error!.message).to.match(/^esbuild cannot tell the folders app\/b\/src\/(Lib|lib)\/ and app\/b\/src\/(lib|Lib)\/ apart: their names differ only in case/);
    expect(error!.message).to.include('app/b/src/Lib/').and.include('app/b/src/lib/').and.match(/the output holds the code of app\/b\/src\/(Lib|lib)\/ only/);
    expect(results[0]!.inputs).to.include('app/b/src/');
    expect(results[1]!.errors).to.deep.equal([]);
    expect(text(results[1]!.code)).to.include('lower');
  });

  // The same two folders named by the import itself, each built from its index (`./UI` for
  // `UI/index.ts`, beside `ui/index.ts`): esbuild folds them alike, and names the other's index.
  it('says esbuild cannot tell apart two folders differing only in case that imports reach through their index, whether the build fails or holds one', async () => {
    const root = tempWorkspace({
      'app/b/index.ts': "import { u } from './ui';\nimport { U } from './UI/';\nexport const got = u + U;\n",
      'app/b/ui/index.ts': "export const u = 'lower';\n",
      'app/b/UI/index.ts': "export const U = 'upper';\n",
      'app/c/index.ts': "import './ui';\nimport './UI';\nexport const c = 1;\n",
      'app/c/ui/index.ts': "(globalThis as any).marks = ['lower'];\n",
      'app/c/UI/index.ts': "(globalThis as any).marks = ['upper'];\n",
      // One folder's index alone, the other folder there too: built as written.
      'app/a/index.ts': "import { U } from './UI';\nexport const got = U;\n",
      'app/a/ui/index.ts': "export const u = 'lower';\n",
      'app/a/UI/index.ts': "export const U = 'upper';\n",
    });
    const results = await createBatchBuilds(root, countingOptions(root, { count: 0 })).bundleOnce([target('b'), target('c'), target('a')], variant);
    const [failed, ...more] = results[0]!.errors;
    expect(more).to.deep.equal([]);
    expect(failed).to.include({ kind: 'BUNDLE_ERROR', file: 'app/b/index.ts', line: 2 });
    expect(failed!.message).to.match(/^esbuild cannot tell the folders app\/b\/(ui|UI)\/ and app\/b\/(UI|ui)\/ apart: their names differ only in case/);
    expect(failed!.message).to.include('app/b/ui/').and.include('app/b/UI/').and.include('the build cannot succeed while both are there').and.include('(esbuild: No matching export in');
    expect(results[0]!.inputs).to.include('app/b/');
    const code = text(results[1]!.code) ?? '';
    expect([code.includes('upper'), code.includes('lower')].filter(Boolean)).to.have.length(1);
    const [heldOne, ...others] = results[1]!.errors;
    expect(others).to.deep.equal([]);
    expect(heldOne).to.include({ kind: 'BUNDLE_ERROR', file: 'app/c/index.ts' });
    expect(heldOne!.message).to.match(/^esbuild cannot tell the folders app\/c\/(ui|UI)\/ and app\/c\/(UI|ui)\/ apart/).and.match(/the output holds the code of app\/c\/(ui|UI)\/ only/);
    expect(results[1]!.inputs).to.include('app/c/');
    expect(results[2]!.errors).to.deep.equal([]);
    expect(text(results[2]!.code)).to.include('upper');
  });

  // Built together, esbuild folds case across the whole build: one module's `../lib/ui` decided
  // which folder another's `../lib/UI` was built from, and one module's `../lib/button` made
  // another's `../lib/Button` (the folder beside it, imported for its index) build from the file,
  // with only a hint. Each module told so is built alone, as an edit builds it; an import of the
  // folder twin built from the file is told, never valid with the file's code.
  it('builds alone a module whose import of one of two case twins another module of the batch folded, and tells an import of a folder built from its file twin', async () => {
    const root = tempWorkspace({
      'app/a/index.ts': "import '../lib/ui';\nexport const a = 1;\n",
      'app/b/index.ts': "import '../lib/UI';\nexport const b = 1;\n",
      'app/lib/ui/index.ts': "(globalThis as any).marks = ['lower'];\n",
      'app/lib/UI/index.ts': "(globalThis as any).marks = ['upper'];\n",
      'app/c/index.ts': "import '../lib/button';\nexport const c = 1;\n",
      'app/d/index.ts': "import '../lib/Button';\nexport const d = 1;\n",
      'app/lib/button.ts': "(globalThis as any).marks = ['file'];\n",
      'app/lib/Button/index.ts': "(globalThis as any).marks = ['folder'];\n",
    });
    const results = await createBatchBuilds(root, countingOptions(root, { count: 0 })).bundleOnce([target('a'), target('b'), target('c'), target('d')], variant);
    expect(results.slice(0, 3).map((result) => result.errors)).to.deep.equal([[], [], []]);
    expect([text(results[0]!.code), text(results[1]!.code), text(results[2]!.code)].map((code) => /'(lower|upper|file)'|"(lower|upper|file)"/.exec(code ?? '')?.slice(1).find(Boolean))).to.deep.equal(['lower', 'upper', 'file']);
    // The folder's index never runs in d: never valid with the file's code.
    const [told, ...more] = results[3]!.errors;
    expect(more).to.deep.equal([]);
    expect(told).to.include({ kind: 'BUNDLE_ERROR', file: 'app/d/index.ts', line: 1 });
    expect(told!.message).to.match(/^esbuild cannot tell app\/lib\/button\.ts and app\/lib\/Button\/ apart: their names differ only in case/);
    expect(results[3]!.inputs).to.include('app/lib/');
  });

  // Imported for their side effects, both twins build: esbuild dedups the two imports into one
  // file, so the other's code is missing from the output and the module would be valid.
  it('says a build that succeeds with both of two case twins imported holds the code of one only, naming both', async () => {
    const root = tempWorkspace({
      'app/a/index.ts': "import './util';\nimport './Util';\nexport const a = 1;\n",
      'app/a/util.ts': "(globalThis as any).marks = ['lower'];\n",
      'app/a/Util.ts': "(globalThis as any).marks = ['upper'];\n",
      // The two imports written in two files of the module.
      'app/b/index.ts': "import './one';\nimport './two';\nexport const b = 1;\n",
      'app/b/one.ts': "import './lib/util';\nexport const one = 1;\n",
      'app/b/two.ts': "import './lib/Util.js';\nexport const two = 2;\n",
      'app/b/lib/util.ts': "(globalThis as any).marks = ['lower'];\n",
      'app/b/lib/Util.ts': "(globalThis as any).marks = ['upper'];\n",
      // Only one of the twins imported: that one is built, as written.
      'app/c/index.ts': "import './util';\nexport const c = 1;\n",
      'app/c/util.ts': "(globalThis as any).marks = ['lower'];\n",
      'app/c/Util.ts': "(globalThis as any).marks = ['upper'];\n",
    });
    const results = await createBatchBuilds(root, countingOptions(root, { count: 0 })).bundleOnce([target('a'), target('b'), target('c')], variant);
    // The output holds one twin's code: the other's never runs.
    const code = text(results[0]!.code) ?? '';
    expect([code.includes("'lower'") || code.includes('"lower"'), code.includes("'upper'") || code.includes('"upper"')].filter(Boolean)).to.have.length(1);
    const [error, ...more] = results[0]!.errors;
    expect(more).to.deep.equal([]);
    expect(error).to.include({ kind: 'BUNDLE_ERROR', file: 'app/a/index.ts' });
    expect(error!.message).to.match(/^esbuild cannot tell app\/a\/(util|Util)\.ts and app\/a\/(Util|util)\.ts apart: their names differ only in case/);
    expect(error!.message).to.include('app/a/util.ts').and.include('app/a/Util.ts').and.match(/its output holds the code of app\/a\/(util|Util)\.ts only/);
    // Renaming either builds again.
    expect(results[0]!.inputs).to.include('app/a/');
    expect(results[1]!.errors.map((e) => e.message)).to.have.length(1);
    expect(results[1]!.errors[0]!.message).to.include('app/b/lib/util.ts').and.include('app/b/lib/Util.ts').and.include('this build imports both');
    expect(results[2]!.errors).to.deep.equal([]);
  });
});
