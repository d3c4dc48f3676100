// A stylesheet's `url()` of a declared asset keeps what follows the file (README "Workspaces"):
// `url(sprite.svg#icon)` lost its fragment (a sprite or a mask broke), in every variant.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import { developmentVariant, productionVariant, type Variant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

const SHEET = 'app/main/main.css';
const unminified: Variant = { ...productionVariant('browser'), min: false };

describe("stylesheet url() of a declared asset: its query and fragment", () => {
  let root: string;
  let engine: ReturnType<typeof createEsbuildEngine>;
  const MAIN = appTarget('main', { assets: ['icon.svg'] });

  beforeEach(() => {
    root = tempWorkspace({
      'app/main/index.ts': "import './main.css';\nexport const main = 1;\n",
      [SHEET]: '.main { color: rgb(1, 2, 3); }\n',
      'app/main/icon.svg': '<svg xmlns="http://www.w3.org/2000/svg"><rect id="frag"/></svg>',
    });
    engine = createEsbuildEngine({ root });
  });
  afterEach(() => engine.dispose());

  for (const variant of [developmentVariant('browser'), unminified, productionVariant('browser')]) {
    it(`keeps the fragment and the query (${variant.env}${variant.min ? ', min' : ''})`, async () => {
      fs.writeFileSync(path.join(root, SHEET), '.main { mask: url("icon.svg#frag"); background: url(./icon.svg?v=2#frag), url(icon.svg); }\n');
      const [result] = await engine.bundle([MAIN], variant);
      expect(result!.errors).to.deep.equal([]);
      const text = Buffer.from(result!.styles!).toString();
      expect(text).to.include('url(../assets/main/icon.svg#frag)');
      expect(text).to.include('url(../assets/main/icon.svg?v=2#frag)');
      expect(text).to.match(/url\(\.\.\/assets\/main\/icon\.svg\)/);
    });
  }
});
