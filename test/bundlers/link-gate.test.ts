// The confinement's callback on relative imports, registered by the watcher's word (README "Links
// and large trees", src/bundlers/plugins/workspace-confinement.ts): where the tree watcher vouches
// that no link leads out of the workspace, a `./` import costs no call into JavaScript; a link
// leading out made while the service runs is refused before esbuild resolves it all the same.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type * as esbuild from 'esbuild';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import { workspaceConfinementPlugin } from '../../src/bundlers/plugins/workspace-confinement.js';
import type { BundleTarget } from '../../src/bundlers/types.js';
import type { TreeWatcher } from '../../src/io/tree-watcher.js';
import { developmentVariant } from '../../src/workspace/variant.js';
import { DEV } from '../helpers/fixtures.js';
import { awaitedWalk, serve } from '../helpers/service.js';
import { inlineWorkspace, tempWorkspace } from '../helpers/workspace.js';

const MAIN: BundleTarget = { specifier: '@t/app/main', subpath: 'main', dir: 'app/main', entry: 'app/main/index.ts', assets: [], platforms: ['web'] };
const text = (bytes: Uint8Array | null) => (bytes ? Buffer.from(bytes).toString('utf8') : '');
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The filters of the `onResolve` callbacks the plugin registers for a build of `entries`. */
function resolveFilters(root: string, noLinkLeadsOut: boolean, entries: string[]): RegExp[] {
  const filters: RegExp[] = [];
  const build = {
    initialOptions: { entryPoints: entries.map((entry) => path.join(root, entry)) },
    onResolve: (options: { filter: RegExp }) => void filters.push(options.filter),
    onLoad: () => {},
    onEnd: () => {},
  };
  void workspaceConfinementPlugin(root, noLinkLeadsOut).setup(build as unknown as esbuild.PluginBuild);
  return filters;
}

/** A service on `root` whose tree watcher has walked the tree, once `@t/app/main` answered 200 at `address`. */
async function walkedService(root: string): Promise<{ service: Awaited<ReturnType<typeof serve>>; watcher: TreeWatcher; address: string }> {
  let watcher: TreeWatcher | null = null;
  const walk = awaitedWalk((made) => ((watcher = made as TreeWatcher), made));
  const service = await serve(root, { effectDeps: walk.deps });
  const address = `/m/@t/app@1.0.0/modules/main?${DEV}`;
  expect((await service.get(address)).status).to.equal(200);
  await walk.walked;
  return { service, watcher: watcher!, address };
}

describe('the confinement by the watcher\'s word on links', function () {
  // A build that met a FIFO config outside unrefused would wait for ever: the bound fails it.
  this.timeout(30_000);
  const fifos: string[] = [];
  let engine: ReturnType<typeof createEsbuildEngine> | null = null;
  afterEach(async () => {
    for (const fifo of fifos.splice(0)) {
      try {
        fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
      } catch {
        // no reader
      }
    }
    await engine?.dispose();
    engine = null;
  });

  /** A folder outside every workspace holding `x.ts` and a FIFO `package.json`. */
  function outsideWithFifo(): string {
    const dir = tempWorkspace({ 'x.ts': "export const x = 'OUTSIDE_X';\n" });
    execFileSync('mkfifo', [path.join(dir, 'package.json')]);
    fifos.push(path.join(dir, 'package.json'));
    return dir;
  }

  it('looks at every relative import without the word, and with it only at those that climb or go through a folder the watcher skips', () => {
    const root = tempWorkspace({ 'app/main/index.ts': '' });
    const matches = (filters: RegExp[], written: string) => filters.some((filter) => filter.test(written));
    const unvouched = resolveFilters(root, false, ['app/main/index.ts']);
    for (const written of ['./helper.ts', './a/b.ts', '../x.ts', '.']) expect(matches(unvouched, written), written).to.equal(true);
    const vouched = resolveFilters(root, true, ['app/main/index.ts']);
    for (const written of ['./helper.ts', './a/b.ts', './foo..bar.ts', '.', 'bare', '@scope/bare']) expect(matches(vouched, written), written).to.equal(false);
    for (const written of ['../x.ts', '..', './a/../../x.ts', './.gen/x.ts', './node_modules/pkg/index.js', './a/node_modules/b']) expect(matches(vouched, written), written).to.equal(true);
    // An entry through a skipped folder is still looked at (the single entry of a kept context always is without the word).
    expect(resolveFilters(root, true, ['app/.gen/index.ts'])).to.have.length(2);
    expect(resolveFilters(root, true, ['app/main/index.ts'])).to.have.length(1);
    expect(resolveFilters(root, false, ['app/main/index.ts'])).to.have.length(2);
  });

  it('still refuses a file outside at its load when the word was given wrongly', async () => {
    const far = tempWorkspace({ 'secret.ts': "export const secret = 'OUTSIDE_SECRET';\n" });
    const root = tempWorkspace({ 'app/main/index.ts': "import { secret } from './linked.ts';\nexport const value = secret;\n" });
    fs.symlinkSync(path.join(far, 'secret.ts'), path.join(root, 'app/main/linked.ts'));
    engine = createEsbuildEngine({ root, noLinkLeadsOut: () => true });
    const [result] = await engine.bundle([MAIN], developmentVariant('browser'));
    expect(text(result!.code)).to.equal('');
    expect(result!.errors.map((error) => error.message).join('\n')).to.include('is outside the workspace').and.not.to.include('OUTSIDE_SECRET');
  });

  it('makes a kept context again once the word is taken back: a link leading out to a FIFO config is refused, not waited on', async () => {
    const far = outsideWithFifo();
    const root = tempWorkspace({ 'app/main/index.ts': "export const value = 'FIRST';\n" });
    let vouched = true;
    engine = createEsbuildEngine({ root, noLinkLeadsOut: () => vouched });
    const first = await engine.rebuild(MAIN, developmentVariant('browser'));
    expect(text(first.code)).to.include('FIRST');
    fs.symlinkSync(far, path.join(root, 'app/main/linked'));
    fs.writeFileSync(path.join(root, 'app/main/index.ts'), "import { x } from './linked/x.ts';\nexport const value = x;\n");
    vouched = false;
    const second = await engine.rebuild(MAIN, developmentVariant('browser'), undefined, { inputs: first.inputs, changed: ['app/main/index.ts'], code: null });
    expect(text(second.code)).to.equal('');
    expect(second.errors.map((error) => [error.file, error.line])).to.deep.equal([['app/main/index.ts', 1]]);
    expect(second.errors[0]!.message).to.include('is outside the workspace');
  });

  it('refuses a bare import a tsconfig `paths` or `baseUrl` mapping sends through a link leading out to a FIFO config, where the watcher has seen one', async () => {
    const far = outsideWithFifo();
    const root = tempWorkspace({
      'tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: './vendor', paths: { '@far/*': ['../linked/*'] } } }),
      'app/main/index.ts': "import { x } from '@far/x.ts';\nimport { y } from 'deep/x.ts';\nexport const value = x + y;\n",
    });
    fs.symlinkSync(far, path.join(root, 'linked'));
    fs.mkdirSync(path.join(root, 'vendor'));
    fs.symlinkSync(far, path.join(root, 'vendor/deep'));
    engine = createEsbuildEngine({ root, linkLeadsOut: () => true });
    const [result] = await engine.bundle([MAIN], developmentVariant('browser'));
    expect(text(result!.code)).to.equal('');
    expect(result!.errors.map((error) => [error.file, error.line])).to.deep.equal([
      ['app/main/index.ts', 1],
      ['app/main/index.ts', 2],
    ]);
    for (const error of result!.errors) expect(error.message).to.include('is outside the workspace').and.not.to.include('OUTSIDE_X');
  });

  it('refuses, on a running service whose watcher saw a link leading out, a bare import mapped through it to a FIFO config', async () => {
    const far = outsideWithFifo();
    const root = inlineWorkspace(
      {
        'packages/app': {
          manifest: { name: '@t/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: {} },
          files: { 'main/index.ts': "export const value = 'FIRST';\n" },
        },
      },
      { 'tsconfig.json': JSON.stringify({ compilerOptions: { paths: { '@far/*': ['./linked/*'] } } }) },
    );
    const { service, watcher, address } = await walkedService(root);
    fs.symlinkSync(far, path.join(root, 'linked'));
    for (let waited = 0; !watcher.linkLeadsOut() && waited < 5_000; waited += 10) await wait(10);
    expect(watcher.linkLeadsOut(), 'the watcher saw the link').to.equal(true);
    fs.writeFileSync(path.join(root, 'packages/app/main/index.ts'), "import { x } from '@far/x.ts';\nexport const value = x;\n");
    const refused = await service.get(address);
    expect(refused.status, refused.text.slice(0, 300)).to.equal(422);
    expect(refused.text).to.include('is outside the workspace').and.not.to.include('OUTSIDE_X');
  });

  it('refuses, on a running service whose watcher vouched, a link leading out to a FIFO config made while it runs, before esbuild resolves it', async () => {
    const far = outsideWithFifo();
    const root = inlineWorkspace({
      'packages/app': {
        manifest: { name: '@t/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: {} },
        files: { 'main/index.ts': "export const value = 'FIRST';\n" },
      },
    });
    const { service, watcher, address } = await walkedService(root);
    expect(watcher.noLinkLeadsOut(), 'the watcher vouches before the link').to.equal(true);
    fs.symlinkSync(far, path.join(root, 'packages/app/main/linked'));
    fs.writeFileSync(path.join(root, 'packages/app/main/index.ts'), "import { x } from './linked/x.ts';\nexport const value = x;\n");
    const refused = await service.get(address);
    expect(refused.status, refused.text.slice(0, 300)).to.equal(422);
    expect(refused.text).to.include('is outside the workspace').and.not.to.include('OUTSIDE_X');
    expect(watcher.noLinkLeadsOut()).to.equal(false);
    // Led back inside, the word is given again and the module builds.
    fs.rmSync(path.join(root, 'packages/app/main/linked'));
    fs.mkdirSync(path.join(root, 'packages/app/main/linked'));
    fs.writeFileSync(path.join(root, 'packages/app/main/linked/x.ts'), "export const x = 'INSIDE_X';\n");
    for (let waited = 0; !watcher.noLinkLeadsOut() && waited < 5_000; waited += 10) await wait(10);
    const answer = await service.get(address);
    expect(answer.status, answer.text.slice(0, 300)).to.equal(200);
    expect(answer.text).to.include('INSIDE_X');
  });
});
