// A declared asset named other than by the literal `new URL('./x', import.meta.url)` (README
// "Workspaces"): `import.meta.resolve('./x')`, `new URL('x', import.meta.url)` (no `./`, the
// same URL) and `new URL('./x', here)` where `here` is a name bound once to `import.meta.url`
// (`const here = import.meta.url`, `const { url } = import.meta`) are made the asset's address
// and load on both preview pages; a held `import.meta.url` the service cannot follow (a computed
// address) is told by a BUNDLE_WARNING at its place, and on /preview/bundled/ resolves against the
// module's own `/m/` address as on /preview/ (README "The bundled preview"). Before, the first two
// were a 404 (or a BUNDLE_ERROR), the held forms a warned 404, and `import.meta` taken whole named
// code.js's address on the bundled page.
import { expect } from 'chai';
import { chromiumForSuite, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const FORMS = {
  resolve: "import.meta.resolve('./data.json')",
  bare: "new URL('data.json', import.meta.url).href",
  held: "(() => { const here = import.meta.url; return new URL('./data.json', here).href; })()",
  whole: "(() => { const { url } = import.meta; return new URL('./data.json', url).href; })()",
  computed: "(() => { const base = import.meta.url; const name = 'data.json'; return new URL('./' + name, base).href; })()",
};

describe('a declared asset named by import.meta.resolve, without ./, or from a held import.meta.url, in Chromium', function () {
  this.timeout(180_000);
  const browser = chromiumForSuite();

  it('loads all but the computed form on both pages, and tells that one, which names the module\'s own address on both', async () => {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'], preview: '@u/app/main' }),
      'packages/app/package.json': json({ name: '@u/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'packages/app/main/module.json': json({ assets: ['data.json'] }),
      'packages/app/main/data.json': '{"v":1}\n',
      'packages/app/main/index.ts': [
        `const forms: Record<string, string> = { ${Object.entries(FORMS).map(([name, form]) => `${name}: ${form}`).join(', ')} };`,
        'const seen: Record<string, string> = {};',
        'for (const [name, address] of Object.entries(forms)) seen[name] = `${new URL(address).pathname} ${(await fetch(address)).status}`;',
        'document.body.dataset.seen = JSON.stringify(seen);',
        '',
      ].join('\n'),
    });
    const service = await serve(root);
    try {
      const state = (await (await fetch(new URL('/state', service.url))).json()) as { modules: { status: string; warnings?: { kind: string; message: string; line?: number }[] }[] };
      const [module] = state.modules;
      expect(module!.status).to.equal('valid');
      expect((module!.warnings ?? []).map(({ kind, line }) => ({ kind, line }))).to.deep.equal([{ kind: 'BUNDLE_WARNING', line: 1 }]);
      expect(module!.warnings![0]!.message).to.include('`../assets/main/data.json`').and.include("new URL('./data.json', import.meta.url)");
      const expected = {
        resolve: '/m/@u/app@1.0.0/assets/main/data.json 200',
        bare: '/m/@u/app@1.0.0/assets/main/data.json 200',
        held: '/m/@u/app@1.0.0/assets/main/data.json 200',
        whole: '/m/@u/app@1.0.0/assets/main/data.json 200',
        computed: '/m/@u/app@1.0.0/modules/data.json 404',
      };
      for (const page of ['/preview/', '/preview/bundled/']) {
        const watched = await openPage(browser());
        try {
          await watched.page.goto(new URL(page, service.url).href, { waitUntil: 'load' });
          await watched.page.waitForFunction(() => document.body.dataset.seen !== undefined, undefined, { timeout: 60_000 });
          expect(JSON.parse((await watched.page.evaluate(() => document.body.dataset.seen))!), page).to.deep.equal(expected);
        } finally {
          await watched.page.close();
        }
      }
    } finally {
      await service.close();
    }
  });
});
