// Which asset addresses a module's outputs may hold after a build shared with other modules
// (README "Shared files"): its own declared assets, and a shared file's those of the modules
// declaring them; any other makes the batch build that module again alone (esbuild-batch.ts).
import { expect } from 'chai';
import { holdsOthersAssets } from '../../src/bundlers/plugins/assets.js';
import { appTarget } from '../helpers/targets.js';

const MARK = '__core_asset_climb__/';
const code = (address: string) => Buffer.from(`var logo = new URL("${MARK}${address}", import.meta.url).href;\n`);
const sheet = (address: string) => Buffer.from(`.logo { background: url(${MARK}${address}); }\n`);

describe('holdsOthersAssets', function () {
  const main = appTarget('main', { subpath: 'main', assets: ['logo.svg', 'data.json'] });

  it("spares the module's own assets, in code and in a sheet, with a query or a hash", function () {
    expect(holdsOthersAssets(code('assets/main/logo.svg'), main)).to.equal(false);
    expect(holdsOthersAssets(sheet('assets/main/logo.svg'), main)).to.equal(false);
    expect(holdsOthersAssets(code('assets/main/logo.svg?v=1'), main)).to.equal(false);
    expect(holdsOthersAssets(Buffer.from('export const plain = 1;\n'), main)).to.equal(false);
  });

  it("finds another module's asset, the same file under another subpath, and a name its own is only the start of", function () {
    expect(holdsOthersAssets(code('assets/other/logo.svg'), main)).to.equal(true);
    expect(holdsOthersAssets(sheet('assets/main/logo.svg.bak'), main)).to.equal(true);
    expect(holdsOthersAssets(Buffer.concat([code('assets/main/logo.svg'), sheet('assets/nested/other/logo.svg')]), main)).to.equal(true);
    // A declared file esbuild compiles has no address: one written so is not the module's.
    expect(holdsOthersAssets(code('assets/main/data.json'), main)).to.equal(true);
  });

  it('spares a shared file the assets of the modules declaring them, and only those', function () {
    const shared = appTarget('.shared/main/helper.ts', { subpath: '.shared/main/helper.ts', assets: [], assetDeclarations: [{ dir: 'app/main', subpath: 'main', assets: ['logo.svg'] }] });
    expect(holdsOthersAssets(code('assets/main/logo.svg'), shared)).to.equal(false);
    expect(holdsOthersAssets(code('assets/other/logo.svg'), shared)).to.equal(true);
  });
});
