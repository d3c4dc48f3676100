// The directories a dynamic import by a pattern lists (src/bundlers/glob-imports.ts) are inputs of
// the build, as listings it only depends on: the pattern's first directory and those below it,
// never `node_modules`, a dot-directory, or a link's target.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import { developmentVariant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('dynamic imports by a pattern, in a build', () => {
  it("records the listings of the pattern's directory and those below it, as paths it depends on", async () => {
    const root = tempWorkspace({
      'app/main/index.ts': "export const load = (lang: string) => import(`./locales/${lang}.ts`);\nexport const plain = () => import('./plain.ts');\n",
      'app/main/plain.ts': 'export const plain = 1;\n',
      'app/main/locales/en.ts': "export default 'hello';\n",
      'app/main/locales/regional/en-gb.ts': "export default 'hullo';\n",
      'app/main/locales/node_modules/x/index.ts': 'export default 0;\n',
      'app/main/locales/.cache/y.ts': 'export default 0;\n',
      'elsewhere/z.ts': 'export default 0;\n',
    });
    fs.symlinkSync(path.join(root, 'elsewhere'), path.join(root, 'app/main/locales/linked'));
    const engine = createEsbuildEngine({ root });
    try {
      const [result] = await engine.bundle([appTarget('main')], developmentVariant('browser'));
      const listings = result!.inputs.filter((input) => input.endsWith('/'));
      expect(listings).to.deep.equal(['app/main/locales/', 'app/main/locales/regional/']);
      expect(result!.resolution).to.include.members(listings);
      expect(result!.inputs).to.include.members(['app/main/locales/en.ts', 'app/main/locales/regional/en-gb.ts', 'app/main/plain.ts']);
    } finally {
      await engine.dispose();
    }
  });
});
