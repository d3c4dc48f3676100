// Development outputs name each declared asset by its content's version (README "Preview and
// stylesheet push"): `?v=<hash>` in a sheet's `url()` and a `new URL` the code writes, added after
// the address an import's value holds (the address stays as written, README "Addresses"), and the
// assets a sheet names are inputs of the build (no build reads them), so that an edit of one builds
// its module again. Without versions (production) the bytes are as before.
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
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

  it('writes none without versions (production)', async () => {
    const [result] = await engine.bundle([MAIN], productionVariant('browser'));
    expect(result!.errors).to.deep.equal([]);
    const styles = Buffer.from(result!.styles!).toString();
    expect(styles).to.not.include('v=');
    expect(styles).to.include('url(../assets/main/bg.svg)');
    expect(Buffer.from(result!.code!).toString()).to.not.include('v=');
  });
});
