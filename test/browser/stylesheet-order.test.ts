// One stylesheet order for every page of an entry with every package in development (README
// "Preview and stylesheet push", "Distribution: core dist"): stylesheet order is the cascade, so
// `/preview/`, `/preview/bundled/` and the page `core dist` writes must apply the same rules when
// sheets of several modules set the same property. Here `preview` names the second module of its
// package, and both modules of the package, and the library both import, colour one element.
// Under a selection the orders differ by rule: test/integration/stylesheet-order-selection.test.ts.
import { expect } from 'chai';
import type http from 'node:http';
import path from 'node:path';
import { distribute } from '../../src/dist/distribute.js';
import { chromiumForSuite, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { staticServer } from '../helpers/static-server.js';
import { inlineWorkspace } from '../helpers/workspace.js';
import { installCore } from '../dist/installed.js';

const MOUNT = "document.body.insertAdjacentHTML('beforeend', '<p class=\"probe\">probe</p>');\n";

/** `ownFirst`: the entry imports its own sheet before the library, whose outline colour then wins. */
function workspace(ownFirst = false): string {
  return inlineWorkspace(
    {
      'packages/app': {
        manifest: { name: '@demo/app', version: '1.0.0', type: 'module', exports: { './first': './first.ts', './main': './main.ts' }, dependencies: { '@demo/lib': '^1.0.0' } },
        files: {
          'first.ts': "import '@demo/lib';\nimport './first.css';\nexport const first = 1;\n",
          'first.css': '.probe { color: rgb(1, 0, 0); background-color: rgb(1, 0, 0); }\n',
          'main.ts': ownFirst ? `import './main.css';\nimport '@demo/lib';\n${MOUNT}` : `import '@demo/lib';\nimport './main.css';\n${MOUNT}`,
          'main.css': '.probe { color: rgb(0, 2, 0); background-color: rgb(0, 2, 0); outline-color: rgb(0, 2, 0); }\n',
        },
      },
      'packages/lib': {
        manifest: { name: '@demo/lib', version: '1.0.0', type: 'module', exports: { '.': './index.ts' } },
        files: { 'index.ts': "import './index.css';\nexport const lib = 1;\n", 'index.css': '.probe { color: rgb(0, 0, 3); outline-color: rgb(0, 0, 3); }\n' },
      },
    },
    { 'core.json': JSON.stringify({ packages: ['packages/app', 'packages/lib'], preview: '@demo/app/main' }) },
  );
}

describe('the stylesheet order of an entry that is not its package\'s first module', function () {
  const browser = chromiumForSuite();

  /** The probe's colours on the page at `url`, once the entry mounted it, and the sheets the page links. */
  async function looks(url: string): Promise<{ colours: string[]; sheets: string[]; failures: string[] }> {
    const watched = await openPage(browser());
    try {
      await watched.page.goto(url, { waitUntil: 'load' });
      await watched.page.waitForSelector('.probe', { timeout: 20_000 });
      const colours = await watched.page.$eval('.probe', (element) => [getComputedStyle(element).color, getComputedStyle(element).backgroundColor, getComputedStyle(element).outlineColor]);
      const sheets = await watched.page.evaluate(() => [...document.querySelectorAll('link[rel=stylesheet]')].map((link) => new URL((link as HTMLLinkElement).href).pathname));
      return { colours, sheets, failures: [...watched.errors, ...watched.failed] };
    } finally {
      await watched.page.close();
    }
  }

  /** The looks of /preview/, /preview/bundled/ and core dist's page, from a static server. */
  async function pages(root: string): Promise<Record<'preview' | 'bundled' | 'distributed', Awaited<ReturnType<typeof looks>>>> {
    const service = await serve(root);
    let preview: Awaited<ReturnType<typeof looks>>;
    let bundled: Awaited<ReturnType<typeof looks>>;
    try {
      preview = await looks(new URL('/preview/', service.url).href);
      bundled = await looks(new URL('/preview/bundled/', service.url).href);
    } finally {
      await service.close();
    }
    const out = path.join(root, 'dist');
    const { page } = await distribute({ root, out });
    expect(page).to.deep.equal({ written: true, path: 'index.html', entry: '@demo/app/main' });
    const server: http.Server = await staticServer(out, null);
    let distributed: Awaited<ReturnType<typeof looks>>;
    try {
      distributed = await looks(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    return { preview, bundled, distributed };
  }

  it("is the preview's on /preview/, /preview/bundled/ and core dist's page: what the entry imports before its own sheet, then the package's modules the entry never imports", async function () {
    const { preview, bundled, distributed } = await pages(installCore(workspace()));
    // lib, main, first: the cascade of the entry (the library it imports before its own sheet),
    // then the package's module it never imports, whose rules come last.
    const expected = ['rgb(1, 0, 0)', 'rgb(1, 0, 0)', 'rgb(0, 2, 0)'];
    expect({ preview: preview.colours, bundled: bundled.colours, dist: distributed.colours }).to.deep.equal({ preview: expected, bundled: expected, dist: expected });
    expect(preview.sheets.map((sheet) => sheet.replace(/^\/m\//, '').replace(/\/styles\//, ' '))).to.deep.equal(['@demo/lib@1.0.0 @root', '@demo/app@1.0.0 main', '@demo/app@1.0.0 first']);
    expect(distributed.sheets).to.deep.equal(['/@demo/lib@1.0.0/styles/@root.css', '/@demo/app@1.0.0/styles/main.css', '/@demo/app@1.0.0/styles/first.css']);
    expect([...preview.failures, ...bundled.failures, ...distributed.failures]).to.deep.equal([]);
  });

  it("puts the entry's own sheet before the library's where the entry imports it first, on every page", async function () {
    const { preview, bundled, distributed } = await pages(installCore(workspace(true)));
    // main, lib, first: the library's outline colour over the entry's, imported after it.
    const expected = ['rgb(1, 0, 0)', 'rgb(1, 0, 0)', 'rgb(0, 0, 3)'];
    expect({ preview: preview.colours, bundled: bundled.colours, dist: distributed.colours }).to.deep.equal({ preview: expected, bundled: expected, dist: expected });
    expect(distributed.sheets).to.deep.equal(['/@demo/app@1.0.0/styles/main.css', '/@demo/lib@1.0.0/styles/@root.css', '/@demo/app@1.0.0/styles/first.css']);
    expect([...preview.failures, ...bundled.failures, ...distributed.failures]).to.deep.equal([]);
  });
});
