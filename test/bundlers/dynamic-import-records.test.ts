// The imports a build records say which are literal `import()` calls (`dynamic`): the bundled
// preview names no module reached only through one (README "The bundled preview"), and takes
// that from the build's record instead of reading each joined output on every plan.
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import { developmentVariant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('import records of literal import() calls', () => {
  it('marks a literal import(), quoted or as a plain template, and no static import', async () => {
    const root = tempWorkspace({
      'app/main/index.ts': [
        "import { make } from '@t/lib/types';",
        "export const lazy = () => import('@t/lib/lazy');",
        'export const templated = () => import(`@t/lib/templated`);',
        "export const computed = (name: string) => import('@t/lib/' + name);",
        "export const both = [make, () => import('@t/lib/types')];",
        '',
      ].join('\n'),
    });
    const engine = createEsbuildEngine({ root });
    try {
      const [result] = await engine.bundle([appTarget('main')], developmentVariant('browser'));
      expect(result!.errors).to.deep.equal([]);
      const imports = result!.imports.map(({ specifier, dynamic }) => ({ specifier, dynamic: dynamic ?? false }));
      expect(imports).to.deep.include.members([
        { specifier: '@t/lib/types', dynamic: false },
        { specifier: '@t/lib/lazy', dynamic: true },
        { specifier: '@t/lib/templated', dynamic: true },
        { specifier: '@t/lib/types', dynamic: true },
      ]);
      expect(imports.filter(({ dynamic }) => dynamic).map(({ specifier }) => specifier).sort()).to.deep.equal(['@t/lib/lazy', '@t/lib/templated', '@t/lib/types']);
    } finally {
      await engine.dispose();
    }
  });
});
