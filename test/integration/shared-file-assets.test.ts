// A declared asset imported by a file served at another depth than the module declaring it (README
// "Shared files"): a private file two modules share is built alone at
// `/m/<package>@<version>/modules/.shared/<path>`, and a stylesheet it imports is part of the
// stylesheet of each module importing it, at `styles/<subpath>`. The asset's address is relative
// to where each output is served, so it reaches `/m/<package>@<version>/assets/<subpath>/<file>`
// from each, instead of a 404 under `modules/.shared/`.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe('declared assets imported by a shared file', () => {
  it('reach the asset from the shared file, and from each stylesheet it is part of', async () => {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      // Both entries beside one module.json: each module declares the asset itself, whichever is built first.
      'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts', './nested/other': './main/other.ts' } }),
      'packages/app/main/module.json': json({ assets: ['logo.svg'] }),
      'packages/app/main/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'packages/app/main/helper.ts': "import logo from './logo.svg';\nimport './helper.css';\nexport const logoUrl = logo;\n",
      'packages/app/main/helper.css': '.logo { background: url(./logo.svg); }\n',
      'packages/app/main/index.ts': "import { logoUrl } from './helper.ts';\nexport const main = logoUrl;\n",
      'packages/app/main/other.ts': "import { logoUrl } from './helper.ts';\nexport const other = logoUrl;\n",
    });
    const service = await serve(root);
    try {
      expect((await service.report()).modules.map((m) => [m.specifier, m.status, m.diagnostics])).to.deep.equal([
        ['@p/app/main', 'valid', []],
        ['@p/app/nested/other', 'valid', []],
      ]);
      const reached = async (address: string, pattern: RegExp) => {
        const answer = await service.get(address);
        expect(answer.status, address).to.equal(200);
        const written = pattern.exec(answer.text)?.[1];
        expect(written, `an asset address in ${address}`).to.be.a('string');
        const asset = new URL(written!, new URL(address, service.url));
        // The asset at the address of a module declaring it (both do).
        expect(asset.pathname).to.match(/^\/m\/@p\/app@1\.0\.0\/assets\/(?:main|nested\/other)\/logo\.svg$/);
        expect((await service.get(asset.pathname)).status).to.equal(200);
      };
      const code = (await service.get('/m/@p/app@1.0.0/modules/main')).text;
      const shared = /from\s*"(@p\/app\/\.shared\/[^"]+)"/.exec(code)?.[1];
      expect(shared, 'the shared file imported by its specifier').to.equal('@p/app/.shared/main/helper.ts');
      await reached('/m/@p/app@1.0.0/modules/.shared/main/helper.ts', /new URL\("([^"]+)", import\.meta\.url\)/);
      await reached('/m/@p/app@1.0.0/styles/main', /url\(([^)]+)\)/);
      await reached('/m/@p/app@1.0.0/styles/nested/other', /url\(([^)]+)\)/);
    } finally {
      await service.close();
    }
  });
});
