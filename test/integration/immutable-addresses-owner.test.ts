// A hashed address answers only bytes made for it (README "Addresses"): the output cache is shared
// by every module and variant, so before, `v=<hash>` of another module's code, of the module's own
// code at its sheet's address, or of another variant's bytes answered those bytes there,
// `immutable`, under the address's type. Each is 404 OUTPUT_NOT_AVAILABLE; the module's own
// earlier and current bytes still answer.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const hashOf = (address: string) => /[?&]v=([A-Za-z0-9_-]{22})$/.exec(address)![1]!;
const withHash = (address: string, hash: string) => address.replace(/&v=[^&]*$/, `&v=${hash}`);

// Module a (a/) and module b (a/icons/) both import a/icons/icon.ts: it is a shared file of the package.
function workspace(): string {
  return tempWorkspace({
    'core.json': JSON.stringify({ packages: ['packages/app'], preview: '@u/app/a' }),
    'packages/app/package.json': JSON.stringify({ name: '@u/app', version: '1.0.0', exports: { './a': './a/index.ts', './b': './a/icons/index.ts', './c': './c/index.ts' } }),
    'packages/app/a/icons/icon.ts': "export const icon = 'icon-v1';\n",
    'packages/app/a/index.ts': "import './a.css';\nimport { icon } from './icons/icon.ts';\nexport const a = `a-${icon}`;\n",
    'packages/app/a/a.css': 'body { color: rgb(1, 2, 3); }\n',
    'packages/app/a/icons/index.ts': "import { icon } from './icon.ts';\nexport const b = `b-${icon}`;\n",
    'packages/app/c/index.ts': "export const c = 'c-only';\n",
  });
}

describe('a hashed address answers only its own bytes', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    root = workspace();
    // No collector pass within the test: every earlier output stays in the cache, so only the
    // rule of this change can refuse one.
    service = await serve(root, { effectDeps: (deps) => ({ ...deps, outputsGcPeriodMs: 3_600_000 }) });
  });
  after(async function () {
    await service?.close();
  });

  const entry = async () => (await service.get('/preview/entry.json')).json<{ imports: Record<string, string>; modules: { specifier: string; code: string; styles: string | null }[] }>();
  const refused = async (address: string, why: string) => {
    const answer = await service.get(address);
    expect(answer.status, `${why}: ${address} answered ${answer.text.slice(0, 120)}`).to.equal(404);
    const body = answer.json<{ code: string; message: string }>();
    expect(body.code, why).to.equal('OUTPUT_NOT_AVAILABLE');
    expect(body.message, why).to.include('no longer kept');
    expect(answer.headers['cache-control'], why).to.not.equal(IMMUTABLE);
  };

  it("refuses another module's current hash, the module's code hash at its sheet, and another variant's hash", async function () {
    const { modules } = await entry();
    const a = modules.find((m) => m.specifier === '@u/app/a')!;
    const c = modules.find((m) => m.specifier === '@u/app/c')!;
    const cHash = hashOf(c.code);
    expect((await service.get(c.code)).text).to.include('c-only');

    await refused(withHash(a.code, cHash), "c's code at a's code address");
    await refused(withHash(a.styles!, cHash), "c's code at a's sheet address");
    await refused(withHash(a.styles!, hashOf(a.code)), "a's code at a's sheet address");
    await refused(withHash(a.code, hashOf(a.styles!)), "a's sheet at a's code address");
    // Another development variant (no inline source map) and production: a's development bytes are not theirs.
    await refused(`${withHash(a.code, hashOf(a.code)).replace('sourcemap=inline', 'sourcemap=none')}`, "a's inline-map bytes at its sourcemap=none address");
    const production = a.code.replace('env=development&min=false&sourcemap=inline', 'env=production&min=true&sourcemap=none');
    const productionAnswer = await service.get(production.replace(/&v=.*$/, ''));
    expect(productionAnswer.status).to.equal(200);
    await refused(production, "a's development bytes at its production address");

    // Its own current bytes answer as before.
    for (const address of [a.code, a.styles!, c.code]) {
      const answer = await service.get(address);
      expect(answer.status, address).to.equal(200);
      expect(answer.headers['cache-control'], address).to.equal(IMMUTABLE);
    }
  });

  it("refuses at a shared file's address a hash that is not that file's, and answers its own", async function () {
    const { modules, imports } = await entry();
    const a = modules.find((m) => m.specifier === '@u/app/a')!;
    expect((await service.get(a.code)).text).to.include('@u/app/.shared/a/icons/icon.ts');
    const shared = imports['@u/app/.shared/a/icons/icon.ts'];
    expect(shared, `the import map names the shared file: ${JSON.stringify(imports)}`).to.be.a('string');
    const own = await service.get(shared!);
    expect(own.status, own.text).to.equal(200);
    expect(own.text).to.include('icon-v1');
    const ownHash = JSON.parse(own.headers.etag as string) as string;
    const plain = shared!.replace(/&v=[^&]*$/, '');
    const named = await service.get(`${plain}${plain.includes('?') ? '&' : '?'}v=${ownHash}`);
    expect(named.status).to.equal(200);
    expect(named.headers['cache-control']).to.equal(IMMUTABLE);
    expect(named.text).to.equal(own.text);
    await refused(`${plain}${plain.includes('?') ? '&' : '?'}v=${hashOf(a.code)}`, "a's code at the shared file's address");
  });

  it('still answers the module its own earlier bytes after an edit, and the current ones', async function () {
    const a = (await entry()).modules.find((m) => m.specifier === '@u/app/a')!;
    const before = await service.get(a.code);
    fs.writeFileSync(path.join(root, 'packages/app/a/index.ts'), "import './a.css';\nimport { icon } from './icons/icon.ts';\nexport const a = `a2-${icon}`;\n");
    const after = (await entry()).modules.find((m) => m.specifier === '@u/app/a')!;
    expect(after.code).to.not.equal(a.code);
    expect((await service.get(after.code)).text).to.include('a2-');
    const earlier = await service.get(a.code);
    expect(earlier.status, earlier.text.slice(0, 200)).to.equal(200);
    expect(earlier.text).to.equal(before.text);
    expect(earlier.headers['cache-control']).to.equal(IMMUTABLE);
    // The earlier code of a is still not its sheet, nor c's.
    const c = (await entry()).modules.find((m) => m.specifier === '@u/app/c')!;
    await refused(withHash(after.styles!, hashOf(a.code)), "a's earlier code at its sheet address");
    await refused(withHash(c.code, hashOf(a.code)), "a's earlier code at c's address");
  });
});
