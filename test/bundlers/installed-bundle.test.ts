// One entry of an installed package bundled for browsers (README "The local CDN"): built only
// from files inside the package's real directory; a file outside it, the entry or an import,
// `../` or a link, is refused before esbuild reads it.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { bundleInstalled, OutsidePackageError } from '../../src/bundlers/installed-bundle.js';
import { tempWorkspace } from '../helpers/workspace.js';

const SECRET = 'BUNDLE_SECRET_MARKER';
const noNames = { name: 'pkg', commonJsNames: () => [], exportOf: () => null, entryOf: () => null };

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
      'node_modules/pkg/tools-user.js': "import { tool } from './tools';\nimport { unit } from './unit';\nimport { alias } from './aliased.js';\nexport const used = [tool, unit, alias];\n",
      'node_modules/pkg/tools/index.js': "export const tool = 'tool';\n",
      'node_modules/pkg/unit.js': "export const unit = 'unit';\nexport const alias = 'alias';\n",
      'node_modules/pkg/component.js': "import './component.css';\nexport const component = 'component';\n",
      'node_modules/pkg/component.css': "@import '/theme/base.css';\n.hero { background: url(/images/bg.png) }\n.logo { background: url('/etc/passwd') }\n",
      'node_modules/pkg/vite-env.js': "export const mode = import.meta.env.MODE;\nexport const dev = import.meta.env.DEV ? 'dev' : 'prod';\nexport const base = import.meta.env.BASE_URL;\n",
    });
    dir = path.join(root, 'node_modules/pkg');
    fs.writeFileSync(path.join(dir, 'absolute.js'), `import secret from ${JSON.stringify(path.join(root, 'secret.js'))};\nexport default secret;\n`);
    fs.symlinkSync('../../secret.js', path.join(dir, 'linked.js'));
    fs.symlinkSync('unit.js', path.join(dir, 'aliased.js'));
  });

  // The service closing aborts the signal: no build of esbuild's is started for it any more.
  it('with its signal aborted, starts no build and rejects with BuildCancelled', async function () {
    const failed = await bundleInstalled(path.join(dir, 'index.js'), dir, noNames, AbortSignal.abort()).then(() => null, (error: Error) => error.name);
    expect(failed).to.equal('BuildCancelled');
  });

  it('bundles the package own files, its bare imports kept, every input inside it', async function () {
    const built = await bundleInstalled(path.join(dir, 'index.js'), dir, noNames);
    expect(built.imports).to.deep.equal(['other']);
    // Relative to the package: its files read, and the package.json of their directory below it.
    expect(built.inputs).to.deep.equal(['index.js', 'lib/helper.js', 'lib/package.json']);
  });

  it('counts as inputs the paths an import tried before the file it found, absent, and where a link crossed inside leads', async function () {
    const built = await bundleInstalled(path.join(dir, 'tools-user.js'), dir, noNames);
    // Inside node_modules esbuild tries JavaScript before TypeScript: .jsx, .js, .tsx, .ts, .css, .json.
    expect(built.inputs).to.deep.equal([
      // `./aliased.js`, a link to unit.js: where each path it could be leads.
      'aliased.js ->',
      'aliased.js.js ->',
      'aliased.js/unit.js ->',
      'tools-user.js',
      // `./tools`, a directory: every file its name could be, then the indexes before index.js.
      'tools.css',
      'tools.js',
      'tools.json',
      'tools.jsx',
      'tools.ts',
      'tools.tsx',
      'tools/index.js',
      'tools/index.jsx',
      'tools/package.json',
      // `./unit`: itself, then the extensions before .js.
      'unit',
      'unit.js',
      'unit.jsx',
    ]);
  });

  it('refuses an import of `../../secret.js`, of an absolute path, and through a link, naming the file', async function () {
    for (const entry of ['leaky.js', 'absolute.js', 'linking.js']) {
      const error = await refusal(path.join(dir, entry), dir);
      expect(error.files, entry).to.deep.equal([path.join(root, 'secret.js')]);
    }
  });

  it("gives a package written for Vite the production values of Vite's own import.meta.env members, which no browser defines", async function () {
    const built = await bundleInstalled(path.join(dir, 'vite-env.js'), dir, noNames);
    const code = Buffer.from(built.code).toString('utf8');
    expect(code).not.to.include('import.meta');
    expect(code).to.include('"production"').and.to.include('"prod"').and.not.to.include('"dev"');
  });

  it("keeps a sheet's url() and @import from the origin's root as written, an address, its code served, nothing read there", async function () {
    for (const entry of ['component.js', 'component.css']) {
      const built = await bundleInstalled(path.join(dir, entry), dir, noNames);
      expect(Buffer.from(built.styles!).toString('utf8'), entry).to.include('@import"/theme/base.css"').and.include('url(/images/bg.png)').and.include('url(/etc/passwd)');
      expect(built.inputs, entry).to.deep.equal(entry === 'component.js' ? ['component.css', 'component.js'] : ['component.css']);
    }
    const code = Buffer.from((await bundleInstalled(path.join(dir, 'component.js'), dir, noNames)).code).toString('utf8');
    expect(code).to.include('"component"');
  });

  it('refuses an entry outside the package', async function () {
    expect((await refusal(path.join(root, 'secret.js'), dir)).files).to.deep.equal([path.join(root, 'secret.js')]);
  });
});
