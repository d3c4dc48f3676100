// A shared file built alone (src/bundlers/esbuild-shared-files.ts) imports the declared assets of
// the module it was found from, and their addresses climb from the shared file's own address
// (`modules/.shared/<path>`), not from the declaring module's (README "Shared files").
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import { chunkTarget } from '../../src/bundlers/esbuild-shared-files.js';
import { developmentVariant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

const text = (bytes: Uint8Array | null) => (bytes ? Buffer.from(bytes).toString('utf8') : null);

describe('declared assets of a shared file built alone', () => {
  it("resolves the declaring module's asset, at an address climbing from the shared file's own", async () => {
    const root = tempWorkspace({
      'app/main/index.ts': "import { logoUrl } from './helper.ts';\nexport const main = logoUrl;\n",
      'app/main/helper.ts': "import logo from './logo.svg';\nimport './helper.css';\nexport const logoUrl = logo;\n",
      'app/main/helper.css': '.logo { background: url(./logo.svg); }\n',
      'app/main/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
    });
    const main = appTarget('main', { assets: ['logo.svg'], package: { name: '@t/app', dir: 'app' } });
    const engine = createEsbuildEngine({ root });
    try {
      // Built alone, as a later build of one importer builds the shared files it imports.
      const [alone] = await engine.bundle([chunkTarget(main, 'app/main/helper.ts', '@t/app/.shared/main/helper.ts')], developmentVariant('browser'));
      expect(alone!.errors).to.deep.equal([]);
      const address = /new URL\("([^"]+)", import\.meta\.url\)/.exec(text(alone!.code)!)?.[1];
      expect(new URL(address!, 'http://x/m/@t/app@1.0.0/modules/.shared/main/helper.ts').pathname).to.equal('/m/@t/app@1.0.0/assets/main/logo.svg');
    } finally {
      await engine.dispose();
    }
  });
});
