// SECURITY.md "The local CDN", against a real service: the attacks found by probing `/cdn/`
// (a package named `..` in every encoding, names npm refuses, a link in node_modules to
// elsewhere, a package whose entry or imports leave it) are refused and read nothing; a
// CommonJS package's named exports are found without running it; generated addresses never
// reach a file outside an installed package; and spellings of one address share one bundle.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { ERROR_CODES } from '../../src/codes.js';
import { registerLocalCdn, type LocalCdn } from '../../src/development/local-cdn.js';
import { expectError } from '../helpers/answers.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const SECRET = 'LOCAL_CDN_SECRET_MARKER';
const json = (value: unknown) => JSON.stringify(value);

/** A workspace at 0.1.0 holding secrets beside node_modules, one linked package, hostile packages and honest ones. */
function workspace(): { root: string; markers: string[] } {
  const root = tempWorkspace();
  const markers = ['ran-outside', 'ran-cjs', 'ran-reexported'].map((name) => path.join(root, `${name}.marker`));
  const writesMarker = (marker: string) => `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`;
  const files: Record<string, string> = {
    'package.json': json({ name: 'the-workspace', version: '0.1.0', private: true }),
    'core.json': json({ packages: ['packages/app'] }),
    'packages/app/package.json': json({ name: '@kit/app', version: '1.0.0', exports: { './main': './main.ts' } }),
    'packages/app/main.ts': 'export const app = 1;\n',
    'packages/app/secrets.local.json': json({ token: SECRET }),
    'secrets.local.json': json({ token: SECRET }),
    'secret.js': `export default ${JSON.stringify(SECRET)};\n`,
    'outside/package.json': json({ name: 'linked', version: '1.0.0', main: 'index.js' }),
    'outside/index.js': `${writesMarker(markers[0]!)}exports.token = ${JSON.stringify(SECRET)};\n`,
    'node_modules/fakelit/package.json': json({ name: 'fakelit', version: '2.0.0', type: 'module', exports: { '.': './index.js', './directive.js': './directive.js' } }),
    'node_modules/fakelit/index.js': "export const html = (s) => 'html:' + s;\n",
    'node_modules/fakelit/directive.js': "import { html } from './index.js';\nexport const directive = () => html('directive');\n",
    'node_modules/Upper/package.json': json({ name: 'Upper', version: '1.0.0', main: 'index.js' }),
    'node_modules/Upper/index.js': `export default ${JSON.stringify(SECRET)};\n`,
    'node_modules/leaky/package.json': json({ name: 'leaky', version: '1.0.0', type: 'module', main: 'index.js' }),
    'node_modules/leaky/index.js': "import secret from '../../secret.js';\nexport default secret;\n",
    'node_modules/exporter/package.json': json({ name: 'exporter', version: '1.0.0', exports: { '.': '../../secret.js', './inner': './lib/../../../secrets.local.json' } }),
    'node_modules/broken/package.json': json({ name: 'broken', version: '1.0.0', main: 'index.js' }),
    'node_modules/broken/index.js': 'export const = ;\n',
    'node_modules/cjs-marker/package.json': json({ name: 'cjs-marker', version: '1.0.0', main: 'index.js', exports: { '.': './index.js', './again': './again.js' } }),
    'node_modules/cjs-marker/index.js': `${writesMarker(markers[1]!)}exports.alpha = function alpha() { return 'a'; };\nmodule.exports.beta = 2;\n`,
    'node_modules/cjs-marker/again.js': "module.exports = require('./impl');\n",
    'node_modules/cjs-marker/impl.js': `${writesMarker(markers[2]!)}exports.gamma = 3;\n`,
  };
  for (const [relative, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), text);
  }
  fs.symlinkSync('../outside', path.join(root, 'node_modules/linked'));
  return { root, markers };
}

/** Every path the service opens through Node's `fs` while `run` runs. */
async function recordingReads<T>(run: () => Promise<T>): Promise<{ result: T; read: string[] }> {
  const read: string[] = [];
  const note = (file: unknown) => {
    if (typeof file === 'string') read.push(path.resolve(file));
  };
  const originals = { readFileSync: fs.readFileSync, openSync: fs.openSync, readFile: fs.promises.readFile, open: fs.promises.open };
  fs.readFileSync = ((file: unknown, ...rest: unknown[]) => (note(file), (originals.readFileSync as (...args: unknown[]) => unknown)(file, ...rest))) as typeof fs.readFileSync;
  fs.openSync = ((file: unknown, ...rest: unknown[]) => (note(file), (originals.openSync as (...args: unknown[]) => unknown)(file, ...rest))) as typeof fs.openSync;
  fs.promises.readFile = ((file: unknown, ...rest: unknown[]) => (note(file), (originals.readFile as (...args: unknown[]) => unknown)(file, ...rest))) as typeof fs.promises.readFile;
  fs.promises.open = ((file: unknown, ...rest: unknown[]) => (note(file), (originals.open as (...args: unknown[]) => unknown)(file, ...rest))) as typeof fs.promises.open;
  try {
    return { result: await run(), read };
  } finally {
    Object.assign(fs, { readFileSync: originals.readFileSync, openSync: originals.openSync });
    Object.assign(fs.promises, { readFile: originals.readFile, open: originals.open });
  }
}

describe('the local CDN under attack (SECURITY.md "The local CDN")', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let cdn: LocalCdn;
  let root: string;
  let markers: string[];
  const EVIL = { Origin: 'http://evil.example' };

  before(async function () {
    ({ root, markers } = workspace());
    // The local CDN alone, registered by an extension of the test's own, so its kept bundles can be counted.
    service = await serve(root, { cdnOrigin: 'local', extensions: [{ name: 'local-cdn-probe', setup: (host) => void (cdn = registerLocalCdn(host)) }] });
  });
  after(async function () {
    await service?.close();
  });

  const expectNothingRan = () => expect(markers.filter((marker) => fs.existsSync(marker)), 'a package ran inside the service').to.deep.equal([]);

  it('refuses a package named `..` or `.`, in every encoding, from another origin, reading nothing outside node_modules', async function () {
    const addresses = [
      '/cdn/..@0.1.0/secrets.local.json',
      '/cdn/..@1.0.0/secrets.local.json',
      '/cdn/.@0.1.0/secrets.local.json',
      '/cdn/%2e%2e@0.1.0/secrets.local.json',
      '/cdn/%2E.@0.1.0/secret.js',
      '/cdn/..%2F..@0.1.0/secrets.local.json',
      '/cdn/fakelit%2F..%2F..@0.1.0/secrets.local.json',
      '/cdn/@kit%2F..@0.1.0/secrets.local.json',
      '/cdn/@..%2F..@0.1.0/secrets.local.json',
      '/cdn/@kit/..@0.1.0/secrets.local.json',
    ];
    const { result: answers, read } = await recordingReads(() => Promise.all(addresses.map((address) => service.get(address, EVIL))));
    for (const answer of answers) {
      expectError(answer, { status: 404, code: 'OUTPUT_NOT_AVAILABLE' });
      expect(answer.text).not.to.include(SECRET);
      expect(answer.headers['access-control-allow-origin']).to.equal(undefined);
    }
    expect(read.filter((file) => /secret/.test(file))).to.deep.equal([]);
  });

  it('refuses names npm refuses (uppercase, characters outside its rules, more than a scope and a name) and versions that are not exact', async function () {
    for (const address of ['/cdn/Upper@1.0.0', '/cdn/fake%20lit@2.0.0', '/cdn/fake~lit@2.0.0', '/cdn/@kit@1.0.0', '/cdn/@kit/app/x@1.0.0', '/cdn/fakelit@v2.0.0', '/cdn/fakelit@^2.0.0', '/cdn/fakelit@2', '/cdn/fakelit@']) {
      const answer = await service.get(address, EVIL);
      expectError(answer, { status: 404, code: 'OUTPUT_NOT_AVAILABLE' });
      expect(answer.text).not.to.include(SECRET);
    }
  });

  it('refuses a link in node_modules whose real directory is elsewhere, and never runs its code', async function () {
    const answer = await service.get('/cdn/linked@1.0.0', EVIL);
    expectError(answer, { status: 404, code: 'OUTPUT_NOT_AVAILABLE' });
    expect(answer.text).not.to.include(SECRET);
    expectNothingRan();
  });

  it('refuses a package whose entry imports `../../secret.js`, or whose exports lead out of it, with CDN_FILE_OUTSIDE_PACKAGE', async function () {
    for (const address of ['/cdn/leaky@1.0.0', '/cdn/exporter@1.0.0', '/cdn/exporter@1.0.0/inner']) {
      const answer = await service.get(address, EVIL);
      expectError(answer, { status: 403, code: 'CDN_FILE_OUTSIDE_PACKAGE' });
      expect(answer.text).not.to.include(SECRET);
    }
  });

  it('answers BUILD_FAILED for an installed package esbuild cannot build, never a 500', async function () {
    expectError(await service.get('/cdn/broken@1.0.0'), { status: 422, code: 'BUILD_FAILED', mentions: ['broken@1.0.0'] });
  });

  it("finds a CommonJS package's named exports, its re-exports followed, without running it", async function () {
    const root = await service.get('/cdn/cjs-marker@1.0.0');
    expect(root.status).to.equal(200);
    expect(root.text).to.match(/export\s*\{[^}]*\balpha\b/).and.to.match(/export\s*\{[^}]*\bbeta\b/);
    const again = await service.get('/cdn/cjs-marker@1.0.0/again');
    expect(again.status).to.equal(200);
    expect(again.text).to.match(/export\s*\{[^}]*\bgamma\b/);
    expectNothingRan();
  });

  it('keeps one bundle per entry: 3,000 spellings of two addresses make two bundles, each answered with the same bytes', async function () {
    this.timeout(120_000);
    const keptBefore = cdn.kept().count;
    const canonical = { '/cdn/fakelit@2.0.0': (await service.get('/cdn/fakelit@2.0.0')).body, '/cdn/fakelit@2.0.0/directive.js': (await service.get('/cdn/fakelit@2.0.0/directive.js')).body };
    const spellings = new Set<string>();
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(canonical)), fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), fc.constantFrom('', '/', '//', '/./'), (address, encode, slash) => {
        const spelled = [...address.slice('/cdn/'.length)].map((char, i) => (encode[i] && char !== '/' ? `%${char.charCodeAt(0).toString(16)}` : char)).join('');
        spellings.add(`/cdn/${slash === '' ? spelled : spelled.replace('/', slash)}`);
      }),
      { numRuns: 6000, seed: 29 },
    );
    expect(spellings.size).to.be.greaterThan(3000);
    for (const spelling of [...spellings].slice(0, 3000)) {
      const answer = await service.get(spelling);
      const decoded = decodeURIComponent(spelling);
      const wanted = canonical[decoded as keyof typeof canonical];
      if (wanted) expect(answer.body.equals(wanted), spelling).to.equal(true);
      else expectError(answer, { status: 404, code: 'OUTPUT_NOT_AVAILABLE' }); // an empty or `.` segment: one address has one spelling
    }
    expect(cdn.kept().count - keptBefore).to.equal(2);
  });

  it('never reads or runs a file outside an installed package, whatever the address (generated)', async function () {
    this.timeout(120_000);
    const served = new Set<string>();
    const name = fc.oneof(
      fc.constantFrom('..', '.', '%2e%2e', '%2E%2e', '.%2e', '..%2F..', '%2F', 'fakelit', 'Upper', 'linked', 'leaky', 'exporter', 'cjs-marker', '@kit/app', '@kit%2Fapp', '@kit/..', '@../..', 'node_modules', 'outside', '', '%00', 'FAKELIT', 'fake%6cit'),
      fc.string({ maxLength: 12 }).map(encodeURIComponent),
    );
    const version = fc.oneof(fc.constantFrom('0.1.0', '1.0.0', '2.0.0', '..', '', '1.0.0%2F..', '%2e%2e'), fc.string({ maxLength: 8 }).map(encodeURIComponent));
    const segment = fc.oneof(fc.constantFrom('secrets.local.json', 'secret.js', '..', '.', '%2e%2e', '', '%2F', '..%2F..', 'index.js', 'directive.js', 'again', 'inner', 'outside', 'package.json', '%5C..'), fc.string({ maxLength: 8 }).map(encodeURIComponent));
    const address = fc.tuple(name, version, fc.array(segment, { maxLength: 4 }), fc.constantFrom('/', '//')).map(([n, v, rest, slash]) => `/cdn/${n}@${v}${rest.map((s) => `${slash}${s}`).join('')}`);
    const { read } = await recordingReads(() =>
      fc.assert(
        fc.asyncProperty(address, async (target) => {
          const first = await service.get(target, EVIL);
          // The workspace's package redirects to its production output at /m/ (README "The local CDN"), judged here too.
          if (first.status === 302) expect(first.headers.location, target).to.match(/^\/m\/@kit\/app@[^/]+\/(?:modules|styles)\/[^/?]/);
          const answer = first.status === 302 ? await service.get(first.headers.location!, EVIL) : first;
          expect(answer.status, `${target}: ${answer.text.slice(0, 200)}`).to.be.below(500);
          expect(answer.text, target).not.to.include(SECRET);
          if (answer.status === 200) served.add(decodeURIComponent(target.split('@')[0]!));
          else expect(Object.keys(ERROR_CODES), target).to.include(answer.json<{ code: string }>().code);
        }),
        { numRuns: 1500, seed: 2929 },
      ),
    );
    // Inside the workspace, the service reads its own manifests and sources, and the files of
    // packages really installed in node_modules: never a secret, a linked copy or `Upper`.
    const workspaceReads = read.filter((file) => file.startsWith(`${root}${path.sep}`)).map((file) => path.relative(root, file));
    const outside = workspaceReads.filter((file) => !/^(?:core\.json|packages\/app\/(?:package\.json|main\.ts)|node_modules\/(?:fakelit|leaky|exporter|cjs-marker)\/[^/]+)$/.test(file));
    expect(outside, 'files read outside an installed package').to.deep.equal([]);
    expect(read.filter((file) => /secret|\.marker$/.test(file))).to.deep.equal([]);
    expectNothingRan();
    expect([...served].every((prefix) => ['/cdn/fakelit', '/cdn/cjs-marker'].includes(prefix)), [...served].join(', ')).to.equal(true);
  });
});
