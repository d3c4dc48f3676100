// A require() of a module kept external (README "Bundling real code"): the output is an ES module,
// where esbuild writes the call as a helper that throws "Dynamic require of ... is not supported"
// when it runs, so the module failed on the page while /state said valid. Each is a BUNDLE_ERROR
// at its call; a required file that is bundled, and an import of the same module, are not.
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('require() of a module kept external', () => {
  const files = {
    'app/main/index.ts': [
      "import { make } from '@t/lib/types';",
      "const types = require('@t/lib/types');",
      "const local = require('./local.cjs');",
      'export const all = [make, types, local];',
      '',
    ].join('\n'),
    'app/main/local.cjs': 'module.exports = 1;\n',
  };

  for (const [platform, variant] of [
    ['web', developmentVariant('browser')],
    ['node', productionVariant('node')],
  ] as const) {
    it(`is an error at each call, naming the import to write (${platform})`, async () => {
      const root = tempWorkspace(files);
      const engine = createEsbuildEngine({ root });
      try {
        const [result] = await engine.bundle([appTarget('main', { platforms: [platform] })], variant);
        expect(result!.errors.map(({ kind, file, line, column }) => ({ kind, file, line, column }))).to.deep.equal([
          { kind: 'BUNDLE_ERROR', file: 'app/main/index.ts', line: 2, column: 23 },
        ]);
        const [call] = result!.errors.map((error) => error.message);
        expect(call).to.include('require("@t/lib/types") cannot run').and.to.include('import x from "@t/lib/types"');
      } finally {
        await engine.dispose();
      }
    });
  }

  it('says nothing of a module that only imports, and requires bundled files', async () => {
    const root = tempWorkspace({
      'app/main/index.ts': "import { make } from '@t/lib/types';\nconst local = require('./local.cjs');\nexport const all = [make, local];\n",
      'app/main/local.cjs': 'module.exports = 1;\n',
    });
    const engine = createEsbuildEngine({ root });
    try {
      const [result] = await engine.bundle([appTarget('main')], developmentVariant('browser'));
      expect(result!.errors).to.deep.equal([]);
      expect(result!.code).to.not.equal(null);
    } finally {
      await engine.dispose();
    }
  });
});
