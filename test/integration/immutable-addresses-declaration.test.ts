// A module's declaration changed (its `exports` entry another file, a module.json declaring an
// asset, a manifest problem and its fix) restarts its builds, not the bytes its hashed addresses
// named (README "Addresses"): those are content-addressed and this module's, so its earlier
// `v=<hash>` addresses answer them as an edit's do. Before, the reset dropped them: an open
// page's earlier addresses answered 404 OUTPUT_NOT_AVAILABLE at once, and 422 while the module
// had a manifest problem. Another module's address still refuses them.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const hashOf = (address: string) => /[?&]v=([A-Za-z0-9_-]{22})$/.exec(address)![1]!;
const withHash = (address: string, hash: string) => address.replace(/&v=[^&]*$/, `&v=${hash}`);
const manifest = (a: string) => JSON.stringify({ name: '@u/app', version: '1.0.0', exports: { './a': a, './c': './c/index.ts' } });

describe("a module's declaration changed: its earlier hashed addresses", function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;
  let firstHash: string;

  before(async function () {
    root = tempWorkspace({
      'core.json': JSON.stringify({ packages: ['packages/app'], preview: '@u/app/a' }),
      'packages/app/package.json': manifest('./a/index.ts'),
      'packages/app/a/index.ts': "import './a.css';\nexport const a = 'first-entry';\n",
      'packages/app/a/other.ts': "import './a.css';\nexport const a = 'second-entry';\n",
      'packages/app/a/a.css': 'body { color: rgb(1, 2, 3); }\n',
      'packages/app/a/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'packages/app/c/index.ts': "export const c = 'c-only';\n",
    });
    // No collector pass within the test: the bytes stay in the output cache, so only the state's
    // record of what the module made decides.
    service = await serve(root, { effectDeps: (deps) => ({ ...deps, outputsGcPeriodMs: 3_600_000 }) });
  });
  after(async function () {
    await service?.close();
  });

  const addresses = async () => {
    const { modules } = (await service.get('/preview/entry.json')).json<{ modules: { specifier: string; code: string; styles: string | null }[] }>();
    return { a: modules.find((m) => m.specifier === '@u/app/a')!, c: modules.find((m) => m.specifier === '@u/app/c')! };
  };
  const answers = async (address: string, text: string) => {
    const answer = await service.get(address);
    expect(answer.status, `${address}: ${answer.text.slice(0, 200)}`).to.equal(200);
    expect(answer.headers['cache-control'], address).to.equal(IMMUTABLE);
    expect(answer.text, address).to.equal(text);
  };
  const write = (file: string, text: string) => fs.writeFileSync(path.join(root, 'packages/app', file), text);

  it('answer their bytes after the entry is another file, a module.json declares an asset, and across a manifest problem', async function () {
    const first = (await addresses()).a;
    const firstCode = (await service.get(first.code)).text;
    const sheet = (await service.get(first.styles!)).text;
    expect(firstCode).to.include('first-entry');
    firstHash = hashOf(first.code);

    write('package.json', manifest('./a/other.ts'));
    const second = (await addresses()).a;
    expect(second.code).to.not.equal(first.code);
    const secondCode = (await service.get(second.code)).text;
    expect(secondCode).to.include('second-entry');
    await answers(first.code, firstCode);
    await answers(first.styles!, sheet);

    write('a/module.json', JSON.stringify({ assets: ['logo.svg'] }));
    await addresses();
    await answers(first.code, firstCode);
    await answers(second.code, secondCode);

    // A manifest problem: the module cannot be built, its plain address refuses it, its bytes still answer.
    write('a/module.json', JSON.stringify({ assets: ['missing.svg'] }));
    const report = await service.report();
    expect(report.modules.find((m) => m.specifier === '@u/app/a')).to.include({ status: 'invalid' });
    expect((await service.get(second.code.replace(/&v=.*$/, ''))).status).to.equal(422);
    await answers(first.code, firstCode);
    await answers(second.code, secondCode);
    await answers(first.styles!, sheet);

    // Fixed, and edited: every earlier address still answers its own bytes.
    write('a/module.json', JSON.stringify({ assets: ['logo.svg'] }));
    write('a/other.ts', "import './a.css';\nexport const a = 'third-entry';\n");
    const third = (await addresses()).a;
    expect((await service.get(third.code)).text).to.include('third-entry');
    await answers(first.code, firstCode);
    await answers(second.code, secondCode);
  });

  it("are still refused at another module's address", async function () {
    const { c } = await addresses();
    const refused = await service.get(withHash(c.code, firstHash));
    expect(refused.status).to.equal(404);
    expect(refused.json<{ code: string }>().code).to.equal('OUTPUT_NOT_AVAILABLE');
  });
});
