// Files outside the workspace (src/bundlers/plugins/workspace-confinement.ts): a relative import
// or a symbolic link leading out of it is refused at the import, never bundled; installed
// packages and links inside the workspace stay as they were.
import { execFileSync } from 'node:child_process';
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
const mkfifo = (file: string) => execFileSync('mkfifo', [file]);
/** Lets an open of `fifo` waiting for a writer go on (ENXIO: no one waits). */
function release(fifo: string): void {
  try {
    fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
  } catch {
    // no reader
  }
}

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
  it('bundles a file directly in the workspace\'s root folder: one beside core.json imported by a package, and a root package\'s entry', async () => {
    const { root, result } = await build("import { config } from '../../config';\nexport const value = config;\n", { 'config.ts': "export const config = 'ROOT_CONFIG';\n", 'r.ts': "export const r = 'ROOT_ENTRY';\n" });
    expect(result.errors).to.deep.equal([]);
    expect(text(result.code)).to.include('ROOT_CONFIG');
    await engine!.dispose();
    engine = createEsbuildEngine({ root });
    const rootEntry: BundleTarget = { ...MAIN, specifier: '@t/root/r', subpath: 'r', dir: '', entry: 'r.ts' };
    const [built] = await engine.bundle([rootEntry], developmentVariant('browser'));
    expect(built!.errors).to.deep.equal([]);
    expect(text(built!.code)).to.include('ROOT_ENTRY');
  });
  describe('a link leading out to a folder with a FIFO config (README "Files that are not files")', function () {
    // Without the refusal before esbuild resolves, these builds wait for ever in the FIFO's open:
    // the bound fails them instead, and each test releases its FIFOs as it ends.
    this.timeout(20_000);
    const fifos: string[] = [];
    afterEach(() => fifos.splice(0).forEach(release));

    /** `outside` holding `x.ts` under `place` with a FIFO `config` at `configAt` (both relative to it). */
    function outsideWithFifo(place: string, configAt: string): string {
      const dir = tempWorkspace({ [`${place}/x.ts`]: "export const x = 'OUTSIDE_X';\n" });
      fs.mkdirSync(path.join(dir, path.dirname(configAt)), { recursive: true });
      mkfifo(path.join(dir, configAt));
      fifos.push(path.join(dir, configAt));
      return dir;
    }

    it('refuses a link to a file there before esbuild resolves it: the build ends, the module invalid at the import, the other module of the build unharmed', async () => {
      const far = outsideWithFifo('lib', 'lib/package.json');
      const root = tempWorkspace({ 'app/main/index.ts': "import { x } from './linked';\nexport const value = x;\n", 'app/other/index.ts': "export const other = 'OTHER';\n" });
      fs.symlinkSync(path.join(far, 'lib/x.ts'), path.join(root, 'app/main/linked.ts'));
      engine = createEsbuildEngine({ root });
      const other: BundleTarget = { ...MAIN, specifier: '@t/app/other', subpath: 'other', dir: 'app/other', entry: 'app/other/index.ts' };
      const [main, built] = await engine.bundle([MAIN, other], developmentVariant('browser'));
      expect(text(main!.code)).to.equal('');
      expect(main!.errors.map((error) => [error.kind, error.file, error.line, error.column])).to.deep.equal([['BUNDLE_ERROR', 'app/main/index.ts', 1, 19]]);
      expect(main!.errors[0]!.message).to.include('lib/x.ts is outside the workspace, and is not read');
      // The link, as the import names it, and its folder: a link retargeted builds the module again.
      expect(main!.inputs).to.include.members(['app/main/index.ts', 'app/main/']);
      expect(built!.errors).to.deep.equal([]);
      expect(text(built!.code)).to.include('OTHER');
    });

    it('refuses an import through a link to a folder there, and a link whose target has the FIFO in a folder above it', async () => {
      const far = outsideWithFifo('deep/lib', 'deep/tsconfig.json');
      const { result } = await build("import { x } from './through/x.ts';\nimport { x as y } from './linked.ts';\nexport const value = x + y;\n", {}, (root) => {
        fs.symlinkSync(path.join(far, 'deep/lib'), path.join(root, 'app/main/through'));
        fs.symlinkSync(path.join(far, 'deep/lib/x.ts'), path.join(root, 'app/main/linked.ts'));
      });
      expect(result.errors.map((error) => [error.file, error.line])).to.deep.equal([
        ['app/main/index.ts', 1],
        ['app/main/index.ts', 2],
      ]);
      expect(result.errors.every((error) => error.message.includes('deep/lib/x.ts is outside the workspace'))).to.equal(true);
    });

    it("refuses a folder's index that links there, and leaves the file esbuild picks before such a link as it was", async () => {
      const far = outsideWithFifo('lib', 'package.json');
      const { result } = await build("import { x } from './folder';\nimport { inner } from './picked';\nexport const value = x + inner;\n", { 'app/main/picked.tsx': "export const inner = 'PICKED_TSX';\n", 'app/main/folder/other.ts': '' }, (root) => {
        fs.symlinkSync(path.join(far, 'lib/x.ts'), path.join(root, 'app/main/folder/index.ts'));
        // esbuild tries `.tsx` before `.ts`: the link is never what `./picked` resolves to.
        fs.symlinkSync(path.join(far, 'lib/x.ts'), path.join(root, 'app/main/picked.ts'));
      });
      expect(result.errors.map((error) => [error.file, error.line])).to.deep.equal([['app/main/index.ts', 1]]);
      expect(result.errors[0]!.message).to.include('lib/x.ts is outside the workspace');
    });

    it('refuses an entry that is such a link, and builds a link to a regular file inside the workspace', async () => {
      const far = outsideWithFifo('lib', 'tsconfig.json');
      const root = tempWorkspace({ 'app/common/inside.ts': "export const inside = 'INSIDE';\n", 'app/other/index.ts': "import { inside } from './inside.js';\nexport const other = inside;\n" });
      fs.mkdirSync(path.join(root, 'app/main'));
      fs.symlinkSync(path.join(far, 'lib/x.ts'), path.join(root, 'app/main/index.ts'));
      fs.symlinkSync('../common/inside.ts', path.join(root, 'app/other/inside.ts'));
      engine = createEsbuildEngine({ root });
      const other: BundleTarget = { ...MAIN, specifier: '@t/app/other', subpath: 'other', dir: 'app/other', entry: 'app/other/index.ts' };
      const [main, built] = await engine.bundle([MAIN, other], developmentVariant('browser'));
      expect(main!.errors.map((error) => [error.kind, error.file])).to.deep.equal([['BUNDLE_ERROR', 'app/main/index.ts']]);
      expect(main!.errors[0]!.message).to.include('lib/x.ts is outside the workspace');
      expect(built!.errors).to.deep.equal([]);
      expect(text(built!.code)).to.include('INSIDE');
      // Built alone, in its kept context: refused too.
      const again = await engine.rebuild(MAIN, developmentVariant('browser'));
      expect(again.errors.map((error) => [error.kind, error.file])).to.deep.equal([['BUNDLE_ERROR', 'app/main/index.ts']]);
    });

    it("refuses such a link in a module's folder reached through a link inside the workspace, and one a '../' import reaches", async () => {
      const far = outsideWithFifo('lib', 'package.json');
      const root = tempWorkspace({ 'real/main/index.ts': "import { x } from './linked.ts';\nimport { y } from '../shared/y';\nexport const value = x + y;\n" });
      fs.mkdirSync(path.join(root, 'real/shared'));
      fs.symlinkSync(path.join(far, 'lib/x.ts'), path.join(root, 'real/main/linked.ts'));
      fs.symlinkSync(path.join(far, 'lib/x.ts'), path.join(root, 'real/shared/y.ts'));
      fs.mkdirSync(path.join(root, 'app'));
      fs.symlinkSync('../real/main', path.join(root, 'app/main'));
      engine = createEsbuildEngine({ root });
      const result = (await engine.rebuild(MAIN, developmentVariant('browser')));
      expect(result.errors.map((error) => [error.file, error.line])).to.deep.equal([
        ['real/main/index.ts', 1],
        ['real/main/index.ts', 2],
      ]);
      expect(result.errors.every((error) => error.message.includes('lib/x.ts is outside the workspace'))).to.equal(true);
    });
  });
});
