// An import with a query (`./notes.txt?raw`): esbuild loads the file and names the input with the
// query in its metafile. The input is the file (README "Bundling real code"): an edit of it is in
// the next answer, never the old text served as fresh.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe('imports with a query', () => {
  it('builds the importer again when the file it imports with a query changes', async () => {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'packages/app/main/index.ts': "import notes from './notes.txt?raw';\nexport const text = notes;\n",
      'packages/app/main/notes.txt': 'first version\n',
    });
    const service = await serve(root);
    const code = async () => (await service.get('/m/@p/app@1.0.0/modules/main')).text;
    try {
      expect(await code()).to.include('first version');
      fs.writeFileSync(path.join(root, 'packages/app/main/notes.txt'), 'second version, longer\n');
      expect(await code()).to.include('second version, longer');
      const details = service.internals.store.getState().builds['@p/app/main']!;
      const inputs = Object.values(details.variants).flatMap((variant) => Object.keys(variant.last?.inputs ?? {}));
      expect(inputs).to.include('packages/app/main/notes.txt');
      expect(inputs.filter((input) => input.includes('?'))).to.deep.equal([]);
    } finally {
      await service.close();
    }
  });
});
