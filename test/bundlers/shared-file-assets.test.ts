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

  it('resolves each asset by the nearest module declaring it, and fails a module importing the shared file that does not declare it itself', async () => {
    const root = tempWorkspace({
      'app/main/index.ts': "import { logoUrl } from './icons/helper.ts';\nexport const main = logoUrl;\n",
      'app/main/icons/index.ts': "import { logoUrl } from './helper.ts';\nexport const icons = logoUrl;\n",
      'app/main/icons/helper.ts': "import logo from './logo.svg';\nexport const logoUrl = logo;\n",
      'app/main/icons/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
    });
    const pkg = { name: '@t/app', dir: 'app' };
    const shared = { 'app/main/icons/helper.ts': '@t/app/.shared/main/icons/helper.ts' };
    // main no longer declares the file; icons (nearer it) does.
    const declarations = [
      { dir: 'app/main', subpath: 'main', assets: [] },
      { dir: 'app/main/icons', subpath: 'main/icons', assets: ['logo.svg'] },
    ];
    const main = appTarget('main', { package: pkg, shared, declarations });
    const icons = appTarget('main/icons', { assets: ['logo.svg'], package: pkg, shared, declarations });
    const engine = createEsbuildEngine({ root });
    try {
      const [mainResult, iconsResult] = await engine.bundle([main, icons], developmentVariant('browser'));
      expect(iconsResult!.errors).to.deep.equal([]);
      const chunk = text(iconsResult!.chunks!['@t/app/.shared/main/icons/helper.ts']!)!;
      expect(/new URL\("([^"]+)", import\.meta\.url\)/.exec(chunk)?.[1]).to.equal('../../../../assets/main/icons/logo.svg');
      // The icons module's own declaration's manifest is an input of the module importing the shared file.
      expect(iconsResult!.inputs).to.include.members(['app/main/icons/module.json', 'app/main/module.json']);
      expect(mainResult!.code).to.equal(null);
      expect(mainResult!.errors.map((error) => [error.kind, error.file, error.message.slice(0, 70)])).to.deep.equal([
        ['BUNDLE_ERROR', 'app/main/icons/helper.ts', '"./logo.svg" is not a declared asset of the module importing it: a mod'],
      ]);
    } finally {
      await engine.dispose();
    }
  });
});
