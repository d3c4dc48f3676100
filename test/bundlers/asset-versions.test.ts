// Development outputs name each declared asset by its content's version (README "Preview and
// stylesheet push"): `?v=<hash>` in a sheet's `url()` and a `new URL` the code writes, added after
// the address an import's value holds (the address stays as written, README "Addresses"), and the
// assets a sheet names are inputs of the build (no build reads them), so that an edit of one builds
// its module again. Without versions (production) the bytes are as before.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('declared assets named by their versions in development outputs', () => {
  let root: string;
  let engine: ReturnType<typeof createEsbuildEngine>;
  const versions = { 'app/main/bg.svg': 'BGVERSION', 'app/main/logo.svg': 'LOGOVERSION', 'app/main/worker.js': 'WORKERVERSION' };
  const MAIN = appTarget('main', { assets: ['bg.svg', 'logo.svg', 'worker.js'] });

  beforeEach(() => {
    root = tempWorkspace({
      'app/main/index.ts': "import './main.css';\nimport logo from './logo.svg';\nexport const main = [logo, new URL('./worker.js', import.meta.url).href];\n",
      'app/main/main.css': '.main { background: url(bg.svg), url(./bg.svg?x=1#frag); }\n',
      'app/main/bg.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'app/main/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'app/main/worker.js': 'self.onmessage = () => {};\n',
    });
    engine = createEsbuildEngine({ root });
  });
  afterEach(() => engine.dispose());

  it('writes each version in a development sheet and code, and makes the sheet’s assets inputs', async () => {
    const [result] = await engine.bundle([{ ...MAIN, assetVersions: versions }], developmentVariant('browser'));
    expect(result!.errors).to.deep.equal([]);
    const styles = Buffer.from(result!.styles!).toString();
    expect(styles).to.include('url(../assets/main/bg.svg?v=BGVERSION)');
    expect(styles).to.include('url(../assets/main/bg.svg?v=BGVERSION&x=1#frag)');
    const code = Buffer.from(result!.code!).toString();
    expect(code).to.include('new URL("../assets/main/logo.svg", import.meta.url).href + "?v=LOGOVERSION"');
    expect(code).to.include('new URL("../assets/main/worker.js?v=WORKERVERSION", import.meta.url)');
    expect(result!.inputs).to.include.members(['app/main/bg.svg', 'app/main/logo.svg', 'app/main/worker.js']);
    expect(result!.resolution).to.include('app/main/bg.svg');
  });

  it('writes the version of an image-set() string and of an address written as the asset’s, and makes those assets inputs', async () => {
    const write = (file: string, text: string) => fs.writeFileSync(path.join(root, file), text);
    write('app/main/main.css', '.main { background: image-set("bg.svg?x=1" 1x, "/m/@t/app@1.0.0/assets/main/logo.svg#i" 2x); }\n');
    write('app/main/index.ts', "import './main.css';\nimport logo from './logo.svg';\nexport const main = [logo, new URL('../assets/main/logo.svg', import.meta.url), new URL('/m/@t/app@1.0.0/assets/main/worker.js?q', import.meta.url), new URL('/m/@t/app@1.0.0/assets/other/a.svg', import.meta.url)];\n");
    const development = { ...MAIN, assetVersions: versions, packageAddress: '/m/@t/app@1.0.0/' };
    const [result] = await engine.bundle([development], developmentVariant('browser'));
    expect(result!.errors).to.deep.equal([]);
    const styles = Buffer.from(result!.styles!).toString();
    // Another version of the package is an error (root-asset-addresses.test.ts).
    expect(styles).to.include('image-set(url(../assets/main/bg.svg?v=BGVERSION&x=1) 1x, "/m/@t/app@1.0.0/assets/main/logo.svg?v=LOGOVERSION#i" 2x)');
    const code = Buffer.from(result!.code!).toString();
    expect(code).to.include('new URL("../assets/main/logo.svg?v=LOGOVERSION", import.meta.url)');
    // An import's address stays as written, its version after it (README "Addresses").
    expect(code).to.include('new URL("../assets/main/logo.svg", import.meta.url).href + "?v=LOGOVERSION"');
    expect(code).to.include('new URL("/m/@t/app@1.0.0/assets/main/worker.js?v=WORKERVERSION&q", import.meta.url)');
    expect(code).to.include('new URL("/m/@t/app@1.0.0/assets/other/a.svg", import.meta.url)');
    expect(result!.inputs).to.include.members(['app/main/bg.svg', 'app/main/logo.svg', 'app/main/worker.js']);
    expect(result!.resolution).to.include.members(['app/main/bg.svg', 'app/main/logo.svg', 'app/main/worker.js']);
    // Production keeps each as written.
    const [production] = await engine.bundle([MAIN], productionVariant('browser'));
    expect(Buffer.from(production!.styles!).toString()).to.include('image-set(url(../assets/main/bg.svg?x=1) 1x,"/m/@t/app@1.0.0/assets/main/logo.svg#i" 2x').and.not.include('v=');
    expect(Buffer.from(production!.code!).toString()).to.include('"../assets/main/logo.svg"').and.include('"/m/@t/app@1.0.0/assets/main/worker.js?q"').and.not.include('v=');
  });

  // README "Workspaces": a url() from the origin's root names an address, not a file of the disk.
  it('keeps a url() written as the address of a declared asset of the module, with its version in development, and makes that asset an input', async () => {
    const write = (file: string, text: string) => fs.writeFileSync(path.join(root, file), text);
    write('app/main/main.css', '.main { background: url(/m/@t/app@1.0.0/assets/main/bg.svg), url("/m/@t/app@1.0.0/assets/main/logo.svg?x=1#i"), url(/m/@t/app@1.0.0/assets/other/a.svg), url(/fonts/a.woff2), url(//cdn.example/b.png); }\n');
    const development = { ...MAIN, assetVersions: versions, packageAddress: '/m/@t/app@1.0.0/' };
    const [result] = await engine.bundle([development], developmentVariant('browser'));
    expect(result!.errors).to.deep.equal([]);
    const styles = Buffer.from(result!.styles!).toString();
    expect(styles).to.include('url(/m/@t/app@1.0.0/assets/main/bg.svg?v=BGVERSION)');
    expect(styles).to.include('url(/m/@t/app@1.0.0/assets/main/logo.svg?v=LOGOVERSION&x=1#i)');
    // Another module's asset, an address of the origin, another host: the author's, as written.
    expect(styles).to.include('url(/m/@t/app@1.0.0/assets/other/a.svg)').and.include('url(/fonts/a.woff2)').and.include('url(//cdn.example/b.png)');
    expect(result!.inputs).to.include.members(['app/main/bg.svg', 'app/main/logo.svg']);
    expect(result!.resolution).to.include.members(['app/main/bg.svg', 'app/main/logo.svg']);
    // The sheet alone edited: its build writes the same.
    const first = await engine.rebuild(development, developmentVariant('browser'));
    write('app/main/main.css', '.main { color: red; background: url(/m/@t/app@1.0.0/assets/main/bg.svg); }\n');
    const next = await engine.rebuild(development, developmentVariant('browser'), undefined, { inputs: first.inputs, changed: ['app/main/main.css'], code: contentHash(first.code!) });
    expect(next.errors).to.deep.equal([]);
    expect(Buffer.from(next.styles!).toString()).to.include('color: red').and.include('url(/m/@t/app@1.0.0/assets/main/bg.svg?v=BGVERSION)');
    expect(next.inputs).to.include('app/main/bg.svg');
    const [production] = await engine.bundle([MAIN], productionVariant('browser'));
    expect(production!.errors).to.deep.equal([]);
    expect(Buffer.from(production!.styles!).toString()).to.include('url(/m/@t/app@1.0.0/assets/main/bg.svg)').and.not.include('v=');
  });

  it('keeps an image-set() string’s asset an input of a sheet rebuilt alone, with its version', async () => {
    fs.writeFileSync(path.join(root, 'app/main/main.css'), '.main { background: image-set("bg.svg" 1x); }\n');
    const development = { ...MAIN, assetVersions: versions, packageAddress: '/m/@t/app@1.0.0/' };
    const first = await engine.rebuild(development, developmentVariant('browser'));
    expect(first.inputs).to.include('app/main/bg.svg');
    // The sheet alone edited: a transform (it writes no url()), not a build.
    fs.writeFileSync(path.join(root, 'app/main/main.css'), '.main { color: red; background: image-set("bg.svg" 1x); }\n');
    const next = await engine.rebuild(development, developmentVariant('browser'), undefined, { inputs: first.inputs, changed: ['app/main/main.css'], code: contentHash(first.code!) });
    expect(Buffer.from(next.styles!).toString()).to.include('color: red').and.include('image-set(url(../assets/main/bg.svg?v=BGVERSION) 1x)');
    expect(next.inputs).to.include('app/main/bg.svg');
    expect(next.resolution).to.include('app/main/bg.svg');
  });

  it('writes none without versions (production)', async () => {
    const [result] = await engine.bundle([MAIN], productionVariant('browser'));
    expect(result!.errors).to.deep.equal([]);
    const styles = Buffer.from(result!.styles!).toString();
    expect(styles).to.not.include('v=');
    expect(styles).to.include('url(../assets/main/bg.svg)');
    expect(Buffer.from(result!.code!).toString()).to.not.include('v=');
  });
});
