// One entry of an installed package bundled for browsers (README "The local CDN"): built only
// from files inside the package's real directory; a file outside it, the entry or an import,
// `../` or a link, is refused before esbuild reads it.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { bundleInstalled, OutsidePackageError } from '../../src/bundlers/installed-bundle.js';
import { tempWorkspace } from '../helpers/workspace.js';

const SECRET = 'BUNDLE_SECRET_MARKER';
const noNames = () => [];

async function refusal(entry: string, dir: string): Promise<OutsidePackageError> {
  const failed = await bundleInstalled(entry, dir, noNames).then(() => null, (error: unknown) => error);
  expect(failed).to.be.instanceOf(OutsidePackageError);
  return failed as OutsidePackageError;
}

describe('bundleInstalled', function () {
  let root: string;
  let dir: string;

  before(function () {
    root = tempWorkspace({
      'secret.js': `export default ${JSON.stringify(SECRET)};\n`,
      'node_modules/pkg/index.js': "import { helper } from './lib/helper.js';\nimport 'other';\nexport const value = helper();\n",
      'node_modules/pkg/lib/helper.js': "export const helper = () => 'helped';\n",
      'node_modules/pkg/leaky.js': "import secret from '../../secret.js';\nexport default secret;\n",
      'node_modules/pkg/absolute.js': '',
      'node_modules/pkg/linking.js': "import secret from './linked.js';\nexport default secret;\n",
    });
    dir = path.join(root, 'node_modules/pkg');
    fs.writeFileSync(path.join(dir, 'absolute.js'), `import secret from ${JSON.stringify(path.join(root, 'secret.js'))};\nexport default secret;\n`);
    fs.symlinkSync('../../secret.js', path.join(dir, 'linked.js'));
  });

  it('bundles the package own files, its bare imports kept, every input inside it', async function () {
    const built = await bundleInstalled(path.join(dir, 'index.js'), dir, noNames);
    expect(built.imports).to.deep.equal(['other']);
    expect(built.inputs.sort()).to.deep.equal([path.join(dir, 'index.js'), path.join(dir, 'lib/helper.js')]);
  });

  it('refuses an import of `../../secret.js`, of an absolute path, and through a link, naming the file', async function () {
    for (const entry of ['leaky.js', 'absolute.js', 'linking.js']) {
      const error = await refusal(path.join(dir, entry), dir);
      expect(error.files, entry).to.deep.equal([path.join(root, 'secret.js')]);
    }
  });

  it('refuses an entry outside the package', async function () {
    expect((await refusal(path.join(root, 'secret.js'), dir)).files).to.deep.equal([path.join(root, 'secret.js')]);
  });
});
