// `new URL('<relative>', import.meta.url)` in a module's code (README "Workspaces"): esbuild keeps
// it as written, and the browser resolves it against the module's own address
// (`/m/<package>@<version>/modules/<subpath>`), where only module code is served. One that does not
// reach a declared asset is a BUNDLE_ERROR at its place, naming the address to write when it means
// a declared asset; one that does, or leaves the package's addresses, or is no file, stays valid.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import type { BundleResult } from '../../src/bundlers/types.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

const places = (result: BundleResult) => result.errors.map(({ kind, file, line, column }) => ({ kind, file, line, column }));

describe('new URL(relative, import.meta.url) in a module', () => {
  let root: string;
  let engine: ReturnType<typeof createEsbuildEngine>;
  const write = (relative: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), content);
  };
  const MAIN = appTarget('main', { assets: ['logo.svg', 'worker.js'] });

  beforeEach(() => {
    root = tempWorkspace({
      'app/main/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'app/main/worker.js': "self.postMessage('worker');\n",
      'app/main/img.png': 'PNG',
    });
    engine = createEsbuildEngine({ root });
  });
  afterEach(() => engine.dispose());

  for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
    it(`reports each that reaches no declared asset at its place, and none of those that do or leave the package (${variant.env})`, async () => {
      write(
        'app/main/index.ts',
        [
          "import logo from './logo.svg';",
          "import { data } from './lib/data.ts';",
          'export const fine = [logo, data,',
          "  new URL('../assets/main/logo.svg', import.meta.url).href,",
          "  new URL('./', import.meta.url).href, new URL('https://cdn.test/x.png', import.meta.url).href,",
          "  new URL('../../../other@1.0.0/assets/x/y.png', import.meta.url).href];",
          "export const image = new URL('./img.png', import.meta.url).href;",
          "export const worker = () => new Worker(new URL(\"./worker.js\", import.meta.url), { type: 'module' });",
          "export const undeclared = new URL('../assets/main/img.png', import.meta.url).href;",
          '',
        ].join('\n'),
      );
      write('app/main/lib/data.ts', "export const data = new URL(`./data.bin`, import.meta.url).href;\n");
      const [result] = await engine.bundle([MAIN], variant);
      expect(places(result!)).to.deep.equal([
        { kind: 'BUNDLE_ERROR', file: 'app/main/index.ts', line: 7, column: 22 },
        { kind: 'BUNDLE_ERROR', file: 'app/main/index.ts', line: 9, column: 27 },
        { kind: 'BUNDLE_ERROR', file: 'app/main/lib/data.ts', line: 1, column: 21 },
      ]);
      const [image, undeclared, data] = result!.errors.map((error) => error.message);
      expect(image).to.include("new URL('./img.png', import.meta.url)").and.to.include('/modules/').and.to.include('"img.png" under "assets"');
      // A declared asset named beside its source: made the address that reaches it, as its import is.
      const code = Buffer.from(result!.code!).toString('utf8');
      expect(code).to.match(/new URL\(\s*"\.\.\/assets\/main\/worker\.js",\s*import\.meta\.url\)/).and.not.to.include('./worker.js');
      expect(undeclared).to.include('not a declared asset');
      expect(data).to.include("new URL('./data.bin', import.meta.url)").and.to.include('"lib/data.bin" under "assets"').and.to.include("new URL('../assets/main/lib/data.bin', import.meta.url)");
    });
  }

  for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
    it(`makes a declared asset's address of a new URL whose base is a name bound once to import.meta.url, and warns of one it cannot tell (${variant.env})`, async () => {
      write(
        'app/main/index.ts',
        [
          'const here: string = import.meta.url;',
          'const { url } = import.meta;',
          'const { url: base } = import.meta;',
          "export const held = [new URL('./logo.svg', here).href, new URL(`worker.js`, url).href, new URL('./logo.svg', base).href];",
          '',
        ].join('\n'),
      );
      const [told] = await engine.bundle([MAIN], variant);
      expect([told!.errors, told!.warnings ?? []]).to.deep.equal([[], []]);
      const code = Buffer.from(told!.code!).toString('utf8');
      expect(code.match(/"\.\.\/assets\/main\/(?:logo\.svg|worker\.js)"/g)).to.have.length(3);
      expect(code).not.to.include('"./logo.svg"').and.not.to.include('worker.js`');

      write('app/main/index.ts', "const name = 'logo.svg';\nconst here = import.meta.url;\nexport const held = [new URL('./logo.svg', here).href, new URL('./' + name, here).href];\n");
      const [computed] = await engine.bundle([MAIN], variant);
      expect((computed!.warnings ?? []).map(({ kind, file, line }) => ({ kind, file, line }))).to.deep.equal([{ kind: 'BUNDLE_WARNING', file: 'app/main/index.ts', line: 2 }]);
      expect(Buffer.from(computed!.code!).toString('utf8')).to.include('"../assets/main/logo.svg"');
    });
  }

  it('reports one that climbs out of the package to no package address under /m/, as a shared file\'s text climbs when bundled, naming the import to write', async () => {
    // Written for a shared file's address (modules/.shared/lib/helper.ts): bundled, it names /m/assets/... or /m/@t/assets/...
    write('app/main/index.ts', "export { far, near } from './lib/helper.ts';\n");
    write('app/main/lib/helper.ts', "export const far = new URL('../../../assets/main/logo.svg', import.meta.url).href;\nexport const near = new URL('../../assets/main/x.bin', import.meta.url).href;\n");
    const [result] = await engine.bundle([MAIN], developmentVariant('browser'));
    expect(places(result!)).to.deep.equal([
      { kind: 'BUNDLE_ERROR', file: 'app/main/lib/helper.ts', line: 1, column: 20 },
      { kind: 'BUNDLE_ERROR', file: 'app/main/lib/helper.ts', line: 2, column: 21 },
    ]);
    const [far, near] = result!.errors.map((error) => error.message);
    expect(far).to.include('to /m/assets/main/logo.svg, where nothing is served').and.to.include(`import url from '../logo.svg'`);
    expect(near).to.include('where nothing is served').and.to.include('import a declared asset');
  });

  it('leaves a module of the node platform alone: there the URL is a file beside its output', async () => {
    write('app/tool/index.ts', "export const config = new URL('./config.json', import.meta.url);\n");
    const [result] = await engine.bundle([appTarget('tool', { platforms: ['node'] })], developmentVariant('node'));
    expect(result!.errors).to.deep.equal([]);
  });
});
