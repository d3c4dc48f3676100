// A dynamic import by a template or a concatenation (`import(`./locales/${lang}.ts`)`): esbuild
// bundles every file the pattern can match, from the directories it lists (README "Bundling real
// code"). Those listings are inputs of the module: a file made there later is in the next answer,
// never a page that throws "Module not found in bundle" while /state says valid.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe('dynamic imports by a pattern', () => {
  it('bundles a file made later where the pattern looks, in the next answer, below the first directory too', async () => {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'packages/app/main/index.ts': "export const load = (lang: string) => import(`./locales/${lang}.ts`);\nexport const data = (name: string) => import('./data/' + name + '.json');\n",
      'packages/app/main/locales/en.ts': "export default 'hello';\n",
      'packages/app/main/locales/regional/en-gb.ts': "export default 'hullo';\n",
      'packages/app/main/data/a.json': '{"first": "alpha"}',
    });
    const service = await serve(root);
    const code = async () => (await service.get('/m/@p/app@1.0.0/modules/main')).text;
    try {
      expect(await code()).to.include('hello').and.to.include('hullo').and.to.include('alpha');
      fs.writeFileSync(path.join(root, 'packages/app/main/locales/fr.ts'), "export default 'bonjour';\n");
      expect(await code()).to.include('bonjour');
      fs.writeFileSync(path.join(root, 'packages/app/main/locales/regional/fr-ca.ts'), "export default 'allo';\n");
      expect(await code()).to.include('allo');
      fs.writeFileSync(path.join(root, 'packages/app/main/data/b.json'), '{"second": "beta"}');
      expect(await code()).to.include('beta');
      // A directory made under it, with a file: both in the next answer.
      fs.mkdirSync(path.join(root, 'packages/app/main/locales/more'));
      fs.writeFileSync(path.join(root, 'packages/app/main/locales/more/de.ts'), "export default 'hallo';\n");
      expect(await code()).to.include('hallo');
      expect((await service.report()).modules.map((m) => [m.specifier, m.status])).to.deep.equal([['@p/app/main', 'valid']]);
    } finally {
      await service.close();
    }
  });
});
