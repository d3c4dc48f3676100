// Vite's query imports (README "Bundling real code"): esbuild reads `./w.js?worker` as the file
// `w.js`, so the value was that module's exports, not a Worker (`?raw`: not the file's text,
// `?url`: not an address) while /state said valid. Each such import is a BUNDLE_ERROR at its
// place, naming what works; the two that give Vite's value are kept: `?raw` of a file esbuild
// loads as text (`.txt`), and `?url` of a declared asset esbuild does not compile (a declared
// `counter.js` is still compiled where imported).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import type { BundleResult } from '../../src/bundlers/types.js';
import { developmentVariant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

const places = (result: BundleResult) => result.errors.map(({ kind, file, line, column }) => ({ kind, file, line, column }));

describe("Vite's query imports in a module", () => {
  it('reports ?worker, ?sharedworker, and ?raw and ?url that do not give their value, at each import', async () => {
    const root = tempWorkspace({
      'app/main/index.ts': [
        "import Counter from './counter.js?worker';",
        "import Shared from './counter.js?sharedworker';",
        "import source from './counter.js?raw';",
        "import text from './notes.txt?raw';",
        "import logo from './logo.svg?url';",
        "import markup from './logo.svg?raw';",
        "import address from './counter.js?url';",
        'export const all = [Counter, Shared, source, text, logo, markup, address];',
        '',
      ].join('\n'),
      'app/main/counter.js': 'export default 1;\n',
      'app/main/notes.txt': 'notes\n',
      'app/main/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
    });
    fs.mkdirSync(path.join(root, 'app/main/unused'));
    const engine = createEsbuildEngine({ root });
    try {
      const [result] = await engine.bundle([appTarget('main', { assets: ['logo.svg', 'counter.js'] })], developmentVariant('browser'));
      expect(places(result!)).to.deep.equal([1, 2, 3, 6, 7].map((line) => ({ kind: 'BUNDLE_ERROR', file: 'app/main/index.ts', line, column: line === 1 ? 21 : line === 2 ? 20 : line === 3 ? 20 : line === 6 ? 20 : 21 })));
      const [worker, shared, raw, markup, url] = result!.errors.map((error) => error.message);
      expect(worker).to.include('"./counter.js?worker"').and.to.include("new Worker(new URL('../assets/main/counter.js', import.meta.url)");
      expect(shared).to.include('"./counter.js?sharedworker"').and.to.include('SharedWorker');
      expect(raw).to.include('"./counter.js?raw"').and.to.include('text');
      expect(markup).to.include('"./logo.svg?raw"');
      expect(url).to.include('"./counter.js?url"').and.to.include('assets');
    } finally {
      await engine.dispose();
    }
  });
});
