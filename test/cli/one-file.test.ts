import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { DEVELOPMENT_ENV, killAllCores, startCore } from '../helpers/cli.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { waitFor } from '../helpers/wait-for.js';
import { PROJECT_DIR } from '../helpers/workspace.js';

const RECORDER = path.join(PROJECT_DIR, 'test/helpers/record-loads.mjs');
const LOADER = path.join(PROJECT_DIR, 'bin/load-bundle.js');
const BUNDLE = path.join(PROJECT_DIR, 'dist/core.cjs');

interface MimeTypes {
  types: Record<string, string>;
  extensions: Record<string, string[]>;
  _extensionConflicts: string[][];
  lookup(value: string): string | false;
  contentType(value: string): string | false;
  charset(value: string): string | false;
  extension(value: string): string | false;
}

describe('the command in one file', function () {
  this.timeout(60_000);
  after(killAllCores);

  // ARCHITECTURE.md, "The command in one file": Node reads dist/core.cjs instead of some 300
  // files, and the extension and bundlers named by specifier are the ones inside it.
  it('core run loads bin/ as modules and, of the rest, only esbuild: dist/core.cjs is compiled by bin/load-bundle.js, whatever it serves', async function () {
    const loads = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'core-loads-')), 'loads.txt');
    const core = await startCore(['--port', '0'], {
      cwd: fixtureWorkspace('basic'),
      env: { ...DEVELOPMENT_ENV, NODE_OPTIONS: `--import=${RECORDER}`, CORE_TEST_LOADS: loads },
    });
    try {
      await waitFor(() => core.output.stdout.includes('ready in'), { what: 'the ready line' });
      for (const address of ['/state', '/preview/', '/m/@acme/app@1.0.0/modules/main', '/']) {
        expect((await get(core.url, address, { accept: 'text/html,*/*' })).status, address).to.equal(200);
      }
    } finally {
      await core.stop();
    }
    const files = [...new Set(fs.readFileSync(loads, 'utf8').split('\n').filter(Boolean))];
    const packageFiles = files.filter((file) => file.startsWith(PROJECT_DIR + path.sep) && file !== RECORDER && !file.includes(`${path.sep}record-loads-hooks.mjs`));
    const relative = packageFiles.map((file) => path.relative(PROJECT_DIR, file));
    // esbuild is a program of its own, run from its package; nothing else is read as a module.
    expect(relative.filter((file) => !file.startsWith('node_modules/esbuild/')).sort()).to.deep.equal(['bin/core.js', 'bin/load-bundle.js']);
  });

  it('holds no copy of mime-db\'s tables: mime-types comes with the tables the build filled (scripts/mime-types-precomputed.js)', () => {
    const bundle = fs.readFileSync(BUNDLE, 'utf8');
    expect([...bundle.matchAll(/^\/\/ (node_modules\/(?:[^/\n]+\/node_modules\/)?mime-(?:db|types)\/[^\n]+)$/gm)].map((match) => match[1]).sort()).to.deep.equal(['node_modules/mime-types/index.js', 'node_modules/mime-types/mimeScore.js']);
    expect(fs.existsSync(path.join(PROJECT_DIR, 'node_modules/accepts/node_modules/mime-db/db.json')), 'accepts installs a copy of its own').to.equal(true);
  });

  it('answers with the precomputed mime-types as mime-types does, for every type and extension mime-db knows', async () => {
    const { precomputedMimeTypes } = (await import(pathToFileURL(path.join(PROJECT_DIR, 'scripts/mime-types-precomputed.js')).href)) as { precomputedMimeTypes: (index: string) => string };
    const index = createRequire(path.join(PROJECT_DIR, 'package.json')).resolve('mime-types');
    const require = createRequire(index);
    const module = { exports: {} as MimeTypes };
    vm.runInThisContext(`(function (exports, require, module) {${precomputedMimeTypes(index)}\n})`)(module.exports, require, module);
    const precomputed = module.exports;
    const original = require(index) as MimeTypes;
    const db = require('mime-db') as Record<string, { extensions?: string[] }>;
    expect(precomputed.types).to.deep.equal(original.types);
    expect(precomputed.extensions).to.deep.equal(original.extensions);
    expect(precomputed._extensionConflicts).to.deep.equal(original._extensionConflicts);
    const asked = ['text/x-unknown', 'TEXT/HTML; charset=latin1', 'x.JS', '', 'none', ...Object.keys(db), ...Object.values(db).flatMap((entry) => entry.extensions ?? [])];
    for (const member of ['lookup', 'contentType', 'charset', 'extension'] as const) {
      expect(asked.map((value) => precomputed[member](value)), member).to.deep.equal(asked.map((value) => original[member](value)));
    }
  });

  it('is ASCII, which bin/load-bundle.js reads as Latin-1: what esbuild leaves unescaped (comments, regular expressions) is escaped', () => {
    const bytes = fs.readFileSync(BUNDLE);
    expect(bytes.findIndex((byte) => byte > 0x7f)).to.equal(-1);
    expect(bytes.toString('latin1')).to.include('/[\\u00df\\u00e6\\u0153\\u00f8\\u0142\\u0111\\u00f0\\u00fe\\u0131]/giu');
  });

  it('holds the hashes of its own code (parts of the build cache\'s keys) that the build computed from dist/, instead of reading dist/ at each start', async () => {
    const { bundlersCodeHash, workspaceReaderCodeHash } = (await import(pathToFileURL(path.join(PROJECT_DIR, 'dist/code-hash.js')).href)) as Record<string, () => string>;
    const bundle = fs.readFileSync(BUNDLE, 'utf8');
    expect(bundle).to.include(`var bundlersCodeHash = () => ${JSON.stringify(bundlersCodeHash!())};`);
    expect(bundle).to.include(`var workspaceReaderCodeHash = () => ${JSON.stringify(workspaceReaderCodeHash!())};`);
  });

  it('copies the members of each built-in module once for all the files importing it, not once per file', () => {
    const bundle = fs.readFileSync(BUNDLE, 'utf8');
    const builtins = [...bundle.matchAll(/__(toESM|oneNS)\(require\("([^"]+)"\)/g)].filter((match) => isBuiltin(match[2]!));
    expect(builtins.length, 'built-in modules imported').to.be.greaterThan(20);
    expect(builtins.filter((match) => match[1] !== 'oneNS').map((match) => match[0])).to.deep.equal([]);
  });

  it('loads esbuild when a build needs it: a restart whose builds all come from the build cache never does', async function () {
    const root = fixtureWorkspace('basic');
    const run = async () => {
      const loads = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'core-loads-')), 'loads.txt');
      const core = await startCore(['--port', '0'], { cwd: root, env: { ...DEVELOPMENT_ENV, NODE_OPTIONS: `--import=${RECORDER}`, CORE_TEST_LOADS: loads } });
      try {
        await waitFor(() => core.output.stdout.includes('ready in'), { what: 'the ready line' });
        expect((await get(core.url, '/state')).status).to.equal(200);
      } finally {
        await core.stop();
      }
      const compiler = fs.readFileSync(loads, 'utf8').split('\n').some((file) => file.startsWith(path.join(PROJECT_DIR, 'node_modules', 'esbuild', 'lib')));
      return { compiler, ready: /ready in \d+ ms {2}\((.*)\)/.exec(core.output.stdout)![1] };
    };
    const first = await run();
    expect(first).to.deep.equal({ compiler: true, ready: '5 modules, 0 invalid' });
    const restart = await run();
    expect(restart).to.deep.equal({ compiler: false, ready: '5 modules, 5 from the build cache, 0 invalid' });
  });
});

// bin/load-bundle.js, in a Node of its own as `core` runs it: whether V8 ran the bundle from
// its code cache, and whether the bundle works.
function load(bundle: string, nodeFlags: string[] = []): { fromCache: boolean; main: string } {
  const script = `import { loadBundle } from ${JSON.stringify(LOADER)}; const { exports, fromCache } = loadBundle(${JSON.stringify(bundle)}); console.log(JSON.stringify({ fromCache, main: typeof exports.main }));`;
  return JSON.parse(execFileSync(process.execPath, [...nodeFlags, '--input-type=module', '--eval', script], { env: nodeEnv(), encoding: 'utf8' }));
}

/** The environment of a Node of its own: the test runner's loader is not the CLI's. */
function nodeEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return env;
}

describe('the code cache of the command in one file', function () {
  this.timeout(30_000);
  let dir: string;
  let bundle: string;
  // A copy of the package's bundle where it reads the package's manifest: <root>/dist/core.cjs.
  beforeEach(() => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'core-code-cache-'));
    fs.copyFileSync(path.join(PROJECT_DIR, 'package.json'), path.join(root, 'package.json'));
    fs.symlinkSync(path.join(PROJECT_DIR, 'node_modules'), path.join(root, 'node_modules'));
    dir = path.join(root, 'dist');
    fs.mkdirSync(dir);
    bundle = path.join(dir, 'core.cjs');
    fs.copyFileSync(BUNDLE, bundle);
    fs.copyFileSync(`${BUNDLE}.code-cache`, `${bundle}.code-cache`);
  });
  afterEach(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));

  it('runs the bundle from the code cache the build made', () => {
    expect(load(BUNDLE)).to.deep.equal({ fromCache: true, main: 'function' });
    expect(load(bundle)).to.deep.equal({ fromCache: true, main: 'function' });
  });

  // ARCHITECTURE.md, "The command in one file": Koa, ws and the routes are loaded once the
  // workspace is read (the first builds dispatched), and their code comes from the cache too.
  // node:https serves only a team cache at an https: address: it is loaded at its first use.
  it('loads the HTTP layer only when a start asks for it: loading the bundle loads none of the built-in modules only Koa and ws need, nor node:https', () => {
    const script = `import { loadBundle } from ${JSON.stringify(LOADER)};
      const builtins = () => process.moduleLoadList.filter((name) => /^NativeModule (zlib|assert|https|tls)$/.test(name));
      const { exports } = loadBundle(${JSON.stringify(bundle)});
      const loaded = builtins();
      await exports.loadDeferredModules();
      console.log(JSON.stringify({ loaded, later: builtins() }));`;
    const { loaded, later } = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '--eval', script], { env: nodeEnv(), encoding: 'utf8' }));
    expect(loaded).to.deep.equal([]);
    expect([...later].sort()).to.deep.equal(['NativeModule assert', 'NativeModule https', 'NativeModule tls', 'NativeModule zlib']);
  });

  it('keeps in the code cache the code of the modules a start loads late (the HTTP layer, the development extension, the bundlers)', () => {
    // The cache of the bundle's loading alone, as a build that did not load them would keep it.
    const script = `import fs from 'node:fs'; import { createRequire } from 'node:module'; import vm from 'node:vm';
      const file = ${JSON.stringify(bundle)};
      const loaded = new vm.Script(\`(function (exports, require, module, __filename, __dirname, bundleImport) {\${fs.readFileSync(file, 'utf8')}\\n})\`, { filename: file });
      const module = { exports: {} };
      loaded.runInThisContext()(module.exports, createRequire(file), module, file, ${JSON.stringify(dir)}, (url) => import(url));
      console.log(loaded.createCachedData().length);`;
    const loadingAlone = Number(execFileSync(process.execPath, ['--input-type=module', '--eval', script], { env: nodeEnv(), encoding: 'utf8' }));
    const kept = fs.statSync(`${bundle}.code-cache`).size;
    expect(kept, `the build's cache (${kept} bytes) against the loading's alone (${loadingAlone})`).to.be.greaterThan(loadingAlone * 1.3);
  });

  it('compiles the bundle from source when the cache was made from other bytes of the same length', () => {
    expect(load(bundle).fromCache, 'the copy as the build made it').to.equal(true);
    const bytes = fs.readFileSync(bundle);
    const at = bytes.lastIndexOf('sourceMappingURL');
    bytes[at] = 'S'.charCodeAt(0); // a comment changed: the code V8 made would still be taken by V8
    fs.writeFileSync(bundle, bytes);
    expect(load(bundle)).to.deep.equal({ fromCache: false, main: 'function' });
  });

  it('reads a bundle that is not ASCII as UTF-8', () => {
    fs.appendFileSync(bundle, '\nmodule.exports.spelled = "\u00df \u2014 \u{1f600}";\n');
    const script = `import { loadBundle } from ${JSON.stringify(LOADER)}; console.log(JSON.stringify(loadBundle(${JSON.stringify(bundle)}).exports.spelled));`;
    expect(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '--eval', script], { env: nodeEnv(), encoding: 'utf8' }))).to.equal('\u00df \u2014 \u{1f600}');
  });

  it('compiles the bundle from source when the cache is corrupt, cut short, empty or missing (V8 would crash on the first)', () => {
    expect(load(bundle).fromCache, 'the copy as the build made it').to.equal(true);
    const cache = fs.readFileSync(`${bundle}.code-cache`);
    const corrupt = Buffer.from(cache);
    for (let index = 5000; index < 6000; index++) corrupt[index] ^= 0x5a;
    for (const bytes of [corrupt, cache.subarray(0, cache.length >> 1), Buffer.alloc(0)]) {
      fs.writeFileSync(`${bundle}.code-cache`, bytes);
      expect(load(bundle)).to.deep.equal({ fromCache: false, main: 'function' });
    }
    fs.rmSync(`${bundle}.code-cache`);
    expect(load(bundle)).to.deep.equal({ fromCache: false, main: 'function' });
  });

  it('compiles the bundle from source with CORE_CODE_CACHE=off', () => {
    const script = `import { loadBundle } from ${JSON.stringify(LOADER)}; const { exports, fromCache } = loadBundle(${JSON.stringify(bundle)}); console.log(JSON.stringify({ fromCache, main: typeof exports.main }));`;
    const run = (value: string) => JSON.parse(execFileSync(process.execPath, ['--input-type=module', '--eval', script], { env: { ...nodeEnv(), CORE_CODE_CACHE: value }, encoding: 'utf8' }));
    expect(run('off')).to.deep.equal({ fromCache: false, main: 'function' });
    expect(run('on')).to.deep.equal({ fromCache: true, main: 'function' });
  });

  it('compiles the bundle from source under other V8 flags, which V8 refuses the cache for', () => {
    expect(load(bundle, ['--max-semi-space-size=16'])).to.deep.equal({ fromCache: false, main: 'function' });
    expect(load(bundle).fromCache, 'the same cache under the flags it was made with').to.equal(true);
  });

  it('runs bin/ as CommonJS scripts (bin/package.json), which Node starts sooner than ES modules', () => {
    const script = `const { loadBundle } = require(${JSON.stringify(LOADER)}); console.log(JSON.stringify({ fromCache: loadBundle(${JSON.stringify(bundle)}).fromCache }));`;
    // Without `require` of ES modules (on by default in this Node): only a CommonJS script loads so.
    const commonJsOnly = '--no-experimental-require-module';
    expect(JSON.parse(execFileSync(process.execPath, [commonJsOnly, '--eval', script], { env: nodeEnv(), encoding: 'utf8' }))).to.deep.equal({ fromCache: true });
    // Required, it runs the command line of this process: none, so the usage.
    expect(execFileSync(process.execPath, [commonJsOnly, '--eval', `require(${JSON.stringify(path.join(PROJECT_DIR, 'bin/core.js'))})`], { env: nodeEnv(), encoding: 'utf8' })).to.match(/^core \d+\.\d+\.\d+: /);
  });

  it('says what makes the bundle when it is missing, in one line and exit 1', () => {
    const root = path.dirname(dir);
    fs.cpSync(path.join(PROJECT_DIR, 'bin'), path.join(root, 'bin'), { recursive: true });
    expect(spawnSync(process.execPath, [path.join(root, 'bin', 'core.js'), '--version'], { env: nodeEnv(), encoding: 'utf8' }).stdout.trim(), 'the copy with its bundle').to.match(/^\d+\.\d+\.\d+/);
    fs.rmSync(bundle);
    const run = spawnSync(process.execPath, [path.join(root, 'bin', 'core.js'), '--version'], { env: nodeEnv(), encoding: 'utf8' });
    expect(run.status).to.equal(1);
    expect(run.stderr).to.equal(`core: ${bundle} is missing; \`npm install\` or \`npm run build\` in ${root}${path.sep} makes it\n`);
  });

  it('writes a cache that the next run takes, by a temporary file renamed', async () => {
    fs.rmSync(`${bundle}.code-cache`);
    expect(load(bundle).fromCache).to.equal(false);
    execFileSync(process.execPath, ['--input-type=module', '--eval', `import { writeCodeCache } from ${JSON.stringify(LOADER)}; await writeCodeCache(${JSON.stringify(bundle)});`], { env: nodeEnv() });
    expect(fs.readdirSync(dir).sort()).to.deep.equal(['core.cjs', 'core.cjs.code-cache']);
    expect(load(bundle)).to.deep.equal({ fromCache: true, main: 'function' });
  });
});
