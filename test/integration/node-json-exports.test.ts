// A node-only module importing a name another package's `exports` maps to JSON (README "Exports
// and sources"): the bare import is left to Node, which imports JSON only when the import carries
// the attribute { type: 'json' }. The attribute is read from esbuild's record of the import, so
// the two imports below, alike but for it, are told apart end to end.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe('a node-only import of a JSON export', function () {
  this.timeout(60_000);

  it('is valid written with { type: "json" } (or Node 20 assert) and an error without it', async () => {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/lib', 'packages/server'] }),
      'packages/lib/package.json': json({ name: '@p/lib', version: '1.0.0', exports: { './data': './data.json', './code': './code.js' } }),
      'packages/lib/data.json': json({ answer: 42 }),
      'packages/lib/code.js': 'export const code = 1;\n',
      'packages/server/package.json': json({ name: '@p/server', version: '1.0.0', exports: { './with': './with/index.js', './asserted': './asserted/index.js', './without': './without/index.js' }, dependencies: { '@p/lib': '1.0.0' } }),
      'packages/server/with/module.json': json({ platforms: ['node'] }),
      'packages/server/without/module.json': json({ platforms: ['node'] }),
      'packages/server/asserted/module.json': json({ platforms: ['node'] }),
      // Node 20's older form, which esbuild keeps in the output but not in its record of the import.
      'packages/server/asserted/index.js': "import data from '@p/lib/data' assert { type: 'json' };\nexport const answer = data.answer;\n",
      'packages/server/with/index.js': "import data from '@p/lib/data' with { type: 'json' };\nexport const answer = data.answer;\n",
      'packages/server/without/index.js': "import data from '@p/lib/data';\nexport const answer = data.answer;\n",
    });
    const service = await serve(root);
    try {
      const modules = (await service.report()).modules;
      const of = (specifier: string) => modules.find((module) => module.specifier === specifier)!;
      expect(of('@p/server/with').status).to.equal('valid');
      expect(of('@p/server/asserted').status).to.equal('valid');
      expect(of('@p/server/without').status).to.equal('invalid');
      expect(JSON.stringify(of('@p/server/without').diagnostics)).to.include("which Node imports only with the attribute { type: 'json' }");
    } finally {
      await service.close();
    }
  });
});
