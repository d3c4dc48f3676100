// Files outside the workspace (src/bundlers/plugins/workspace-confinement.ts): a relative import
// or a symbolic link leading out of it is refused at the import, never bundled; installed
// packages and links inside the workspace stay as they were.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import type { BundleTarget } from '../../src/bundlers/types.js';
import { developmentVariant } from '../../src/workspace/variant.js';
import { DEV } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace, tempWorkspace } from '../helpers/workspace.js';

const MAIN: BundleTarget = { specifier: '@t/app/main', subpath: 'main', dir: 'app/main', entry: 'app/main/index.ts', assets: [], platforms: ['web'] };
const text = (bytes: Uint8Array | null) => (bytes ? Buffer.from(bytes).toString('utf8') : '');

describe('workspaceConfinementPlugin', () => {
  let outside: string;
  let engine: ReturnType<typeof createEsbuildEngine> | null = null;
  beforeEach(() => {
    outside = tempWorkspace({ 'secret.ts': "export const secret = 'OUTSIDE_SECRET';\n", 'theme.css': '.outside { color: red; }\n' });
  });
  afterEach(async () => {
    await engine?.dispose();
    engine = null;
  });

  /** The module built in a workspace whose `app/main/index.ts` is `entry`, with `files` besides. */
  async function build(entry: string, files: Record<string, string> = {}, prepare?: (root: string) => void) {
    const root = tempWorkspace({ 'app/main/index.ts': entry, ...files });
    prepare?.(root);
    engine = createEsbuildEngine({ root });
    return { root, result: (await engine.bundle([MAIN], developmentVariant('browser')))[0]! };
  }

  it('refuses a relative import of a file outside the workspace at the import, with its line and column', async () => {
    const { result } = await build('', {}, (at) => {
      const relative = path.relative(path.join(at, 'app/main'), path.join(outside, 'secret.ts')).split(path.sep).join('/');
      fs.writeFileSync(path.join(at, 'app/main/index.ts'), `import { secret } from '${relative}';\nexport const value = secret;\n`);
    });
    expect(text(result.code)).to.equal('');
    expect(result.errors).to.have.length(1);
    expect(result.errors[0]).to.include({ kind: 'BUNDLE_ERROR', file: 'app/main/index.ts', line: 1, column: 24 });
    expect(result.errors[0]!.message).to.include('is outside the workspace').and.to.include('secret.ts').and.not.to.include('OUTSIDE_SECRET');
    expect(result.inputs).to.include('app/main/index.ts');
    expect(result.inputs.filter((input) => input.startsWith('..'))).to.deep.equal([]);
  });

  it('refuses a symbolic link inside the workspace to a file or a stylesheet outside it', async () => {
    const { result } = await build("import { secret } from './linked.ts';\nimport './linked.css';\nexport const value = secret;\n", {}, (root) => {
      fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(root, 'app/main/linked.ts'));
      fs.symlinkSync(path.join(outside, 'theme.css'), path.join(root, 'app/main/linked.css'));
    });
    expect(text(result.code)).to.not.include('OUTSIDE_SECRET');
    expect(result.errors.map((error) => [error.file, error.line])).to.deep.equal([
      ['app/main/index.ts', 1],
      ['app/main/index.ts', 2],
    ]);
    // The links are inputs of the failure: led back into the workspace, they build the module again.
    expect(result.inputs).to.include.members(['app/main/linked.ts', 'app/main/linked.css', 'app/main/']);
  });

  it('builds the module again once the link leads back into the workspace, on a running service', async () => {
    const root = inlineWorkspace({
      'packages/app': {
        manifest: { name: '@t/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: {} },
        files: { 'main/index.ts': "import { secret } from './linked.ts';\nexport const value = secret;\n", 'common/inside.ts': "export const secret = 'INSIDE_VALUE';\n" },
      },
    });
    const link = path.join(root, 'packages/app/main/linked.ts');
    fs.symlinkSync(path.join(outside, 'secret.ts'), link);
    const service = await serve(root);
    const address = `/m/@t/app@1.0.0/modules/main?${DEV}`;
    const refused = await service.get(address);
    expect(refused.status).to.equal(422);
    expect(refused.text).to.include('is outside the workspace').and.not.to.include('OUTSIDE_SECRET');
    fs.rmSync(link);
    fs.symlinkSync('../common/inside.ts', link);
    const answer = await service.get(address);
    expect(answer.status, answer.text.slice(0, 300)).to.equal(200);
    expect(answer.text).to.include('INSIDE_VALUE');
  });

  it('bundles a link inside the workspace, and leaves installed packages as they were', async () => {
    const { result } = await build("import { shared } from './shared.ts';\nimport { installed } from './node_modules/pkg/index.js';\nimport 'bare-package';\nexport const value = shared + installed;\n", {
      'app/common/shared.ts': "export const shared = 'INSIDE_SHARED';\n",
      'app/main/node_modules/pkg/index.js': "export const installed = 'INSTALLED';\n",
    }, (root) => fs.symlinkSync('../common/shared.ts', path.join(root, 'app/main/shared.ts')));
    expect(result.errors).to.deep.equal([]);
    expect(text(result.code)).to.include('INSIDE_SHARED').and.to.include('INSTALLED').and.to.include('"bare-package"');
  });
});
