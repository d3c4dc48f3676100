// Joining a page (src/bundlers/page-bundle.ts): esbuild reads each output from a file written
// once per content and finds the modules by alias; references inside an output keep meaning
// what they mean at its own address.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { PageBundleError, type JoinFiles } from '../../src/bundlers/join-files.js';
import { createJoinFiles } from '../../src/io/join-directory.js';
import { bundleCode, bundlePage, bundlePageMaps, JOINED_NAMESPACES, joinedFiles, type BundledModule, type PageBundleInput } from '../../src/bundlers/page-bundle.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { notStartingWith } from '../../src/bundlers/filters.js';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const DEV = '?target=browser&env=development';

function module(address: string, code: string): BundledModule {
  const hash = contentHash(code);
  return { address: `${address}${DEV}&v=${hash}`, code, hash };
}

function page(): PageBundleInput {
  return {
    entry: '@t/app/main',
    modules: new Map([
      ['@t/app/main', module('/m/@t/app@1.0.0/modules/main', "import { lib } from '@t/lib';\nimport { badge } from '@t/lib/badge';\nimport helper from '../assets/main/helper.js';\nimport remote from 'https://cdn.test/remote.js';\nimport absolute from '/u/absolute.js';\nexport const main = [lib, badge, helper, remote, absolute, new URL('../assets/main/logo.svg', import.meta.url).href];\ndocument.title = String(main);\n")],
      ['@t/lib', module('/m/@t/lib@2.0.0/modules', "export const lib = 'LIB_MARKER';\n")],
    ]),
    sheets: [
      { address: `/m/@t/app@1.0.0/styles/main${DEV}`, styles: '.main { background: url(../assets/main/logo.svg); }\n@import "https://cdn.test/font.css";\n', hash: contentHash('main-sheet') },
      { address: `/m/@t/lib@2.0.0/styles${DEV}`, styles: '.lib { color: rgb(1, 2, 3); }\n', hash: contentHash('lib-sheet') },
    ],
    // Not joined (broken, or loaded on its own), under the joined `@t/lib`.
    separate: ['@t/lib/badge'],
  };
}

describe('bundlePage', function () {
  let files: JoinFiles;
  beforeEach(() => (files = createJoinFiles()));
  afterEach(() => files.remove());

  it('refuses a join esbuild cannot make with a BUNDLE_ERROR per error, naming the outputs by their addresses, never by the join directory files', async function () {
    const input: PageBundleInput = {
      entry: '@t/app/main',
      modules: new Map([
        ['@t/app/main', module('/m/@t/app@1.0.0/modules/main', "import { nothing } from '@t/lib';\ndocument.title = String(nothing);\n")],
        ['@t/lib', module('/m/@t/lib@2.0.0/modules', "export const lib = 'LIB_MARKER';\n")],
      ]),
      sheets: [],
      separate: [],
    };
    const failure = await bundlePage(input, files).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).to.be.instanceOf(PageBundleError);
    const { diagnostics, message } = failure as PageBundleError;
    expect(diagnostics.map(({ kind }) => kind)).to.deep.equal(['BUNDLE_ERROR']);
    expect(diagnostics[0]!.message).to.equal('/m/@t/app@1.0.0/modules/main, line 1 of its code: No matching export in "/m/@t/lib@2.0.0/modules" for import "nothing"');
    expect(message).to.equal(diagnostics[0]!.message);
  });

  // The service closing aborts the signal: no call of esbuild's is started for the join any more.
  it('with its signal aborted, joins nothing and rejects with BuildCancelled, maps too', async function () {
    for (const join of [bundlePage, bundlePageMaps]) {
      const failed = await join(page(), files, AbortSignal.abort()).then(() => null, (error: Error) => error.name);
      expect(failed, join.name).to.equal('BuildCancelled');
    }
  });

  it('joins the outputs read from files: a separate specifier under a joined one stays bare, references mean what they meant at each address', async function () {
    const { code, styles } = await bundlePage(page(), files);
    const joined = text(code);
    expect(joined).to.include('LIB_MARKER');
    expect(joined).to.match(/from "@t\/lib\/badge"/);
    expect(joined).to.include('"/m/@t/app@1.0.0/assets/main/helper.js"');
    expect(joined).to.include('"https://cdn.test/remote.js"');
    expect(joined).to.include('"/u/absolute.js"');
    // import.meta.url of a joined module is its own address.
    expect(joined).to.include('new URL("/m/@t/app@1.0.0/modules/main');
    expect(styles, 'one part: no CDN sheet between').to.have.length(1);
    const sheet = text(styles[0]!);
    expect(sheet).to.include('url(/m/@t/app@1.0.0/assets/main/logo.svg)');
    expect(sheet).to.include('https://cdn.test/font.css');
    expect(sheet.indexOf('.main')).to.be.lessThan(sheet.indexOf('.lib'));
    // Every output is a file of the join directory, named by its address and hash.
    const written = joinedFiles(page(), files).filter((file) => !file.includes('.map.'));
    for (const file of written) expect(fs.existsSync(file), file).to.equal(true);
    expect(written).to.include(`${files.dir()}/m/@t/lib@2.0.0/modules.${page().modules.get('@t/lib')!.hash}.js`);
  });

  it('joins the same code without the inline maps as with them, and reads no inline map when joining without', async function () {
    const input = page();
    const map = (source: string) => `//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify({ version: 3, sources: [source], sourcesContent: ['x'], mappings: 'AAAA', names: [] })).toString('base64')}\n`;
    const withMaps = new Map([...input.modules].map(([specifier, { address, code }]) => [specifier, module(address.replace(/\?.*$/, ''), `${code}${map(`packages/${specifier}.ts`)}`)]));
    input.modules = withMaps;
    input.sheets = input.sheets.map((sheet) => ({ ...sheet, styles: `${sheet.styles}/*# sourceMappingURL=data:application/json;base64,${Buffer.from('{"version":3,"sources":["s.css"],"mappings":"AAAA","names":[]}').toString('base64')} */\n` }));
    const { code } = await bundlePage(input, files);
    for (const file of joinedFiles(input, files).filter((file) => !file.includes('.map.'))) expect(fs.readFileSync(file, 'utf8'), file).to.not.include('sourceMappingURL=data:');
    await bundlePageMaps(input, files);
    for (const file of joinedFiles(input, files).filter((file) => file.includes('.map.'))) expect(fs.readFileSync(file, 'utf8'), file).to.include('sourceMappingURL=data:');
    // The code the maps describe: the same lines, but for the comments naming the files.
    const withMap = text((await bundleCode(input, files, true))[0]).replace(/\/\/# sourceMappingURL=page\.js\.map\n$/, '');
    const lines = (source: string) => source.split('\n').map((line) => (line.startsWith('// ') ? '// (a file)' : line));
    expect(lines(text(code))).to.deep.equal(lines(withMap));
  });

  it('hands the named modules\' namespaces over under its key before any joined code runs, the same with and without maps', async function () {
    const registry = Symbol.for(JOINED_NAMESPACES);
    const input: PageBundleInput = {
      entry: '@t/app/main',
      modules: new Map([
        ['@t/app/main', module('/m/@t/app@1.0.0/modules/main', "import { lib } from '@t/lib';\nglobalThis.seenByMain = globalThis[Symbol.for('core.bundled.modules')]?.get('the-key')?.('@t/lib')?.lib;\nexport const main = lib;\n")],
        ['@t/lib', module('/m/@t/lib@2.0.0/modules', "globalThis.libRuns = (globalThis.libRuns ?? 0) + 1;\nexport const lib = 'LIB_MARKER';\n")],
      ]),
      sheets: [],
      separate: [],
      named: { key: 'the-key', specifiers: ['@t/app/main', '@t/lib'] },
    };
    const scope = globalThis as unknown as Record<string | symbol, unknown>;
    try {
      const { code } = await bundlePage(input, files);
      await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
      expect(scope.seenByMain).to.equal('LIB_MARKER');
      expect(scope.libRuns).to.equal(1);
      const named = (scope[registry] as Map<string, (specifier: string) => Record<string, unknown> | undefined>).get('the-key')!;
      expect(named('@t/app/main')?.main).to.equal('LIB_MARKER');
      expect(named('@t/lib/other')).to.equal(undefined);
      // The same lines; esbuild names a namespace after its file (`<name>.map.js` with maps), a
      // name on lines of its own making, which map to no source.
      const withMap = text((await bundleCode(input, files, true))[0]).replace(/\/\/# sourceMappingURL=page\.js\.map\n$/, '');
      const lines = (source: string) => source.split('\n').map((line) => (line.startsWith('// ') ? '// (a file)' : line.replace(/_map_exports\b/g, '_exports')));
      expect(lines(text(code))).to.deep.equal(lines(withMap));
    } finally {
      delete scope[registry];
      delete scope.seenByMain;
      delete scope.libRuns;
    }
  });

  // README "The bundled preview": a CDN's sheet the page links between two runs of development sheets keeps its place.
  it('joins each part of the sheet on its own, in the page\'s order, each with its own source map', async function () {
    const input: PageBundleInput = { ...page(), sheetParts: [1] };
    const { styles } = await bundlePage(input, files);
    const parts = styles.map(text);
    expect(parts).to.have.length(2);
    expect(parts[0]).to.include('.main').and.not.include('.lib');
    expect(parts[1]).to.include('.lib').and.not.include('.main');
    const { stylesMap } = await bundlePageMaps(input, files);
    expect(stylesMap.map((map) => (JSON.parse(text(map)) as { sources: string[] }).sources.length)).to.deep.equal([1, 1]);
  });

  it('names the sources of the joined maps as the outputs own maps do, not from the join directory', async function () {
    const input = page();
    const lib = module('/m/@t/lib@2.0.0/modules', "export const lib = 'LIB_MARKER';\n//# sourceMappingURL=data:application/json;base64," + Buffer.from(JSON.stringify({ version: 3, sources: ['packages/lib/index.ts'], sourcesContent: ["export const lib = 'LIB_MARKER';\n"], mappings: 'AAAA', names: [] })).toString('base64') + '\n');
    input.modules = new Map([...input.modules, ['@t/lib', lib]]);
    const { codeMap } = await bundlePageMaps(input, files);
    const { sources } = JSON.parse(text(codeMap)) as { sources: string[] };
    expect(sources).to.include('packages/lib/index.ts');
    expect(sources.some((source) => source.includes(path.basename(files.dir())) || source.startsWith('m/'))).to.equal(false);
  });
});

describe('notStartingWith', function () {
  it('matches exactly the paths that do not start with the prefix', function () {
    const prefix = '/tmp/core-join-12-a.b[c]^-\\/';
    const filter = notStartingWith(prefix);
    for (const path of [`${prefix}m/x.css`, prefix]) expect(filter.test(path), path).to.equal(false);
    for (const path of ['', '/', '/tmp/core-join-12-a.b[c]^-\\', '/tmp/core-join-12-aXb', '../logo.svg', 'x.css', 'https://cdn.test/a.css']) expect(filter.test(path), path).to.equal(true);
  });
});
