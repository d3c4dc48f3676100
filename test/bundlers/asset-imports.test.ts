// A declared `.js` asset the code names by `new URL` (a module worker) is served as written, so
// the browser fetches what it imports: an undeclared sibling answers 404 and a bare specifier has
// no import map in a worker. Each is a warning ASSET_IMPORT_UNSERVED at the import (README
// "Bundling real code"); the module stays valid, and the assets read are inputs of its build.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import type { BundleResult } from '../../src/bundlers/types.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

const unserved = (result: BundleResult) =>
  (result.warnings ?? []).filter((w) => w.kind === 'ASSET_IMPORT_UNSERVED').map(({ file, line, column, message }) => ({ file, line, column, message }));

describe('the imports of a declared script asset named by new URL (a worker)', () => {
  let root: string;
  let engine: ReturnType<typeof createEsbuildEngine>;
  const MAIN = appTarget('main', { assets: ['w1.js', 'w2.js', 'w3.js', 'helper2.js', 'unnamed.js', 'broken.js', 'w/deep.mjs'] });

  beforeEach(() => {
    root = tempWorkspace({
      'app/main/index.ts': [
        "for (const url of [new URL('./w1.js', import.meta.url), new URL('./w2.js', import.meta.url), new URL('./w3.js', import.meta.url),",
        "  new URL('./broken.js', import.meta.url), new URL('./w/deep.mjs', import.meta.url)]) new Worker(url, { type: 'module' });",
        '',
      ].join('\n'),
      // An undeclared sibling: served nowhere.
      'app/main/w1.js': "import { h } from './helper1.js';\npostMessage(h);\n",
      'app/main/helper1.js': "export const h = 'h1';\n",
      // A declared sibling is served; what it imports in turn is judged too.
      'app/main/w2.js': "import { h } from './helper2.js';\npostMessage(h);\n",
      'app/main/helper2.js': "export { h } from 'some-package';\n",
      // A bare specifier: a worker has no import map.
      'app/main/w3.js': "// a worker\nimport { a } from '@p/lib/util';\npostMessage(a);\n",
      // Declared but named by no code: not judged.
      'app/main/unnamed.js': "import 'anything';\n",
      // Does not parse: the browser says why, not this check.
      'app/main/broken.js': "import { from './x.js';\n",
      // Climbing back to a declared asset, from the origin's root, with a scheme: none is judged wrong.
      'app/main/w/deep.mjs': "import '../helper2.js';\nimport '/elsewhere.js';\nimport 'https://cdn.test/x.js';\n",
    });
    engine = createEsbuildEngine({ root });
  });
  afterEach(() => engine.dispose());

  for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
    it(`warns at each import the browser cannot load, and the module stays valid (${variant.env})`, async () => {
      const [result] = await engine.bundle([MAIN], variant);
      expect(result!.errors).to.deep.equal([]);
      expect(result!.code).to.not.equal(null);
      const found = unserved(result!);
      expect(found.map(({ file, line, column }) => ({ file, line, column }))).to.deep.equal([
        { file: 'app/main/w1.js', line: 1, column: 19 },
        { file: 'app/main/w3.js', line: 2, column: 19 },
        { file: 'app/main/helper2.js', line: 1, column: 19 },
      ]);
      expect(found[0]!.message).to.contain('imports "./helper1.js" (app/main/helper1.js), which is no declared asset of @t/app/main').and.to.contain('declare "helper1.js" under "assets" too');
      expect(found[1]!.message).to.contain('imports "@p/lib/util" by a bare specifier: a worker has no import map');
      expect(found[2]!.message).to.contain('app/main/helper2.js is a declared asset').and.to.contain('"some-package"');
      // Each asset read is an input: an edit of the helper a worker imports judges it again.
      expect(result!.inputs).to.include.members(['app/main/w1.js', 'app/main/w2.js', 'app/main/helper2.js', 'app/main/w/deep.mjs']);
      expect(result!.inputs).to.not.include('app/main/unnamed.js');
    });
  }

  it('says nothing once the sibling is declared and the bare import is a relative one', async () => {
    fs.writeFileSync(path.join(root, 'app/main/w3.js'), "import { h } from './helper2.js';\npostMessage(h);\n");
    fs.writeFileSync(path.join(root, 'app/main/helper2.js'), "export const h = 'h2';\n");
    const [result] = await engine.bundle([{ ...MAIN, assets: [...MAIN.assets, 'helper1.js'] }], developmentVariant('browser'));
    expect(result!.errors).to.deep.equal([]);
    expect(unserved(result!)).to.deep.equal([]);
  });
});
