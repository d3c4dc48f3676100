// A declared asset whose file name holds `%`, `#` or `?` (README "Addresses"): its address is its
// name percent-encoded (`a%20b.svg` is `.../a%2520b.svg`), in the code and in sheets, and the
// router decodes it back to exactly that name. Before, the raw name was written: the browser asked
// `a b.svg` (another file's bytes) for `a%20b.svg`, a 404 for `c%23d.svg`, and `p%.svg` was judged
// undeclared. Each file has its own width, so the page tells which bytes it got.
import { expect } from 'chai';
import type http from 'node:http';
import path from 'node:path';
import { distribute } from '../../src/dist/distribute.js';
import { chromiumForSuite, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { staticServer } from '../helpers/static-server.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const svg = (width: number) => `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="2"><rect width="${width}" height="2" fill="red"/></svg>`;
const WIDTHS = { space: 3, percent: 9, hash: 11, lone: 5, sheet: 11 };

function namesWorkspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app'], preview: '@p/app/main' }),
    'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
    'packages/app/main/module.json': json({ platforms: ['web'], assets: ['a b.svg', 'a%20b.svg', 'c%23d.svg', 'p%.svg'] }),
    'packages/app/main/a b.svg': svg(WIDTHS.space),
    'packages/app/main/a%20b.svg': svg(WIDTHS.percent),
    'packages/app/main/c%23d.svg': svg(WIDTHS.hash),
    'packages/app/main/p%.svg': svg(WIDTHS.lone),
    'packages/app/main/s.css': '.sheet { background-image: url("c%23d.svg"); }\n',
    'packages/app/main/index.ts': [
      "import './s.css';",
      "import space from './a b.svg';",
      "import percent from './a%20b.svg';",
      "import hash from './c%23d.svg';",
      "import lone from './p%.svg';",
      'const widths: Record<string, number> = {};',
      'for (const [name, address] of Object.entries({ space, percent, hash, lone })) {',
      '  const image = new Image();',
      '  image.src = address;',
      '  widths[name] = await image.decode().then(() => image.naturalWidth, () => -1);',
      '}',
      "const sheetAddress = /url\\(\"([^\"]+)\"\\)/.exec(getComputedStyle(document.body.appendChild(Object.assign(document.createElement('div'), { className: 'sheet' }))).backgroundImage)![1]!;",
      'const sheetImage = new Image();',
      'sheetImage.src = sheetAddress;',
      'widths.sheet = await sheetImage.decode().then(() => sheetImage.naturalWidth, () => -1);',
      'document.body.dataset.widths = JSON.stringify(widths);',
      '',
    ].join('\n'),
  });
}

describe('declared assets whose file names hold %, # or ?, in Chromium', function () {
  this.timeout(180_000);
  const browser = chromiumForSuite();

  async function widthsAt(url: string): Promise<unknown> {
    const watched = await openPage(browser());
    try {
      await watched.page.goto(url, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body.dataset.widths !== undefined, undefined, { timeout: 60_000 });
      return JSON.parse((await watched.page.evaluate(() => document.body.dataset.widths))!);
    } finally {
      await watched.page.close();
    }
  }

  it('shows each file by its own address on /preview/, /preview/bundled/ and core dist\'s page, the module valid', async () => {
    const root = namesWorkspace();
    const service = await serve(root);
    try {
      const state = await (await fetch(new URL('/state', service.url))).json() as { modules: { specifier: string; status: string; diagnostics?: unknown[] }[] };
      expect(state.modules.map(({ specifier, status, diagnostics }) => ({ specifier, status, diagnostics: diagnostics ?? [] }))).to.deep.equal([{ specifier: '@p/app/main', status: 'valid', diagnostics: [] }]);
      expect(await widthsAt(new URL('/preview/', service.url).href)).to.deep.equal(WIDTHS);
      expect(await widthsAt(new URL('/preview/bundled/', service.url).href)).to.deep.equal(WIDTHS);
    } finally {
      await service.close();
    }
    const out = path.join(root, 'dist');
    expect((await distribute({ root, out })).invalid).to.deep.equal([]);
    const server: http.Server = await staticServer(out, null);
    try {
      const { port } = server.address() as { port: number };
      expect(await widthsAt(`http://127.0.0.1:${port}/`)).to.deep.equal(WIDTHS);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
