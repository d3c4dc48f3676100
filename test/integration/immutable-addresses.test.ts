// Addresses named by content hash (README "Addresses"): the preview's import map and stylesheet
// links carry `v=<hash>`, answered as immutable; an edit gives the next page new addresses, and
// an address never serves other bytes than those its hash names.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';
import type { CoreEvent } from '../../src/store/events.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';

describe('immutable addresses', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    root = fixtureWorkspace('basic');
    service = await serve(root);
  });
  after(async function () {
    await service?.close();
  });

  const importMap = async () => (await service.get('/preview/entry.json')).json<{ imports: Record<string, string>; modules: { specifier: string; styles: string | null }[] }>();

  it('names each built output by its hash, answered immutable; the plain address stays no-cache', async function () {
    const { imports, modules } = await importMap();
    const address = imports['@acme/app/main']!;
    const hash = /&v=([A-Za-z0-9_-]{22})$/.exec(address)![1];
    const named = await service.get(address);
    expect(named.headers['cache-control']).to.equal(IMMUTABLE);
    expect(named.headers.etag).to.equal(`"${hash}"`);
    const plain = await service.get(address.replace(/&v=.*$/, ''));
    expect(plain.headers['cache-control']).to.equal('no-cache');
    expect(plain.text).to.equal(named.text);
    const styles = modules.find((m) => m.specifier === '@acme/app/main')!.styles!;
    expect((await service.get(styles)).headers['cache-control']).to.equal(IMMUTABLE);
    // A token that is no hash is the cache-busting token it always was.
    expect((await service.get(`${address.replace(/&v=.*$/, '')}&v=123`)).headers['cache-control']).to.equal('no-cache');
  });

  it('gives a changed module a new address, and never serves other bytes at the old one', async function () {
    const before = (await importMap()).imports['@acme/app/main']!;
    const oldBody = (await service.get(before)).text;
    const entry = path.join(root, 'packages/app/main/index.ts');
    fs.appendFileSync(entry, '\nexport const addedByTheTest = 1;\n');
    const after = (await importMap()).imports['@acme/app/main']!;
    expect(after).to.not.equal(before);
    expect((await service.get(after)).text).to.include('addedByTheTest');
    const old = await service.get(before);
    if (old.status === 200) expect(old.text).to.equal(oldBody);
    else expect(old.json().code).to.equal('OUTPUT_NOT_AVAILABLE');
    const production = await service.get(`${before.replace('env=development&min=false&sourcemap=inline', 'env=production&min=true&sourcemap=none')}`);
    expect(production.status).to.equal(404);
  });
});

describe('an address naming the bytes of the last build', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    root = fixtureWorkspace('basic');
    // No watcher: an edit stays unseen until a check against the disk finds it.
    service = await serve(root, { watch: false });
  });
  after(async function () {
    await service?.close();
  });

  const checksMade = () => service.internals.log.events().filter((event: CoreEvent) => event.type === 'files.changed' && event.source === 'check').length;

  it('is answered in development without the check against the disk (no change can make those bytes stale); production and plain addresses are checked', async function () {
    const { modules } = (await service.get('/preview/entry.json')).json<{ modules: { specifier: string; styles: string | null }[] }>();
    const development = modules.find((m) => m.specifier === '@acme/app/main')!.styles!;
    const before = await service.get(development);
    expect(before.text).to.include('rgb(1, 2, 3)');
    const production = await service.get('/m/@acme/app@1.0.0/styles/main?env=production');
    const productionHash = JSON.parse(production.headers.etag as string) as string;

    const sheet = path.join(root, 'packages/app/main/styles.css');
    fs.writeFileSync(sheet, fs.readFileSync(sheet, 'utf8').replace('rgb(1, 2, 3)', 'rgb(9, 8, 7)'));
    const checks = checksMade();
    const named = await service.get(development);
    expect(named.status).to.equal(200);
    expect(named.headers['cache-control']).to.equal(IMMUTABLE);
    expect(named.text).to.equal(before.text);
    expect(checksMade(), 'no check ran for the named bytes').to.equal(checks);

    // Production keeps only the current build: its named address is checked, finds the edit, and names an old build.
    const old = await service.get(`/m/@acme/app@1.0.0/styles/main?env=production&v=${productionHash}`);
    expect(old.status).to.equal(404);
    expect(old.json<{ code: string }>().code).to.equal('OUTPUT_NOT_AVAILABLE');
    expect(checksMade()).to.be.greaterThan(checks);
    expect((await service.get(development.replace(/&v=.*$/, ''))).text).to.include('rgb(9, 8, 7)');
    // The earlier development bytes are still those bytes, now as an earlier build's.
    expect((await service.get(development)).text).to.equal(before.text);
  });
});

// probe48 finding 4: a stylesheet answered 200 `immutable` at its hashed address answered 422 there
// a moment later, once another module stopped exporting a name its module imports. The bytes are
// still those bytes; the judgement is the plain address's and /state's (README "Addresses").
describe('an address naming bytes of a module judged invalid since', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    root = tempWorkspace({
      'core.json': JSON.stringify({ packages: ['packages/a'] }),
      'packages/a/package.json': JSON.stringify({ name: '@p/a', version: '1.0.0', exports: { './main': './main/index.ts', './lib': './lib/index.ts' } }),
      'packages/a/lib/index.ts': "export const libv = 'lib';\n",
      'packages/a/main/index.ts': "import './main.css';\nimport { libv } from '@p/a/lib';\ndocument.body.dataset.ok = libv;\n",
      'packages/a/main/main.css': 'body { color: rgb(1, 2, 3); }\n',
    });
    service = await serve(root);
  });
  after(async function () {
    await service?.close();
  });

  it('answers the same bytes, immutable, while the plain address and /state refuse the module', async function () {
    const { imports, modules } = (await service.get('/preview/entry.json')).json<{ imports: Record<string, string>; modules: { specifier: string; styles: string | null }[] }>();
    const code = imports['@p/a/main']!;
    const styles = modules.find((m) => m.specifier === '@p/a/main')!.styles!;
    const productionPlain = '/m/@p/a@1.0.0/styles/main?env=production';
    const productionHash = JSON.parse((await service.get(productionPlain)).headers.etag as string) as string;
    const production = `${productionPlain}&v=${productionHash}`;
    const before = new Map<string, string>();
    for (const address of [code, styles, production]) {
      const answer = await service.get(address);
      expect(answer.status, address).to.equal(200);
      expect(answer.headers['cache-control'], address).to.equal(IMMUTABLE);
      before.set(address, answer.text);
    }
    expect(before.get(styles)).to.include('rgb(1, 2, 3)');

    // The exporter drops the name: main is invalid, with no build of its own.
    fs.writeFileSync(path.join(root, 'packages/a/lib/index.ts'), "export const other = 'lib';\n");
    await waitFor(async () => (await service.get(styles.replace(/&v=.*$/, ''))).status === 422, { what: "main's plain sheet address refused once lib no longer exports libv" });
    const main = (await service.report()).modules.find((module) => module.specifier === '@p/a/main')!;
    expect(main.status).to.equal('invalid');
    expect((await service.get(code.replace(/&v=.*$/, ''))).json<{ code: string }>().code).to.equal('BUILD_FAILED');

    for (const address of [code, styles, production]) {
      const answer = await service.get(address);
      expect(answer.status, `${address}: ${answer.text.slice(0, 200)}`).to.equal(200);
      expect(answer.headers['cache-control'], address).to.equal(IMMUTABLE);
      expect(answer.text, address).to.equal(before.get(address));
    }
  });
});
