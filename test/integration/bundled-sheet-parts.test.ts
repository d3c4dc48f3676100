// The parts of the bundled preview's joined sheet (README "The bundled preview"): cut where the
// page links a CDN's sheet between two development sheets, each at its own address (`part`), and
// cut anew when the CDN's sheets change with no build of the workspace (an installed package
// that starts importing a sheet); `part` judged as a query value.
import { expect } from 'chai';
import { write } from '../helpers/edit.js';
import { serve } from '../helpers/service.js';
import { sheetPartsWorkspace } from '../helpers/sheet-parts-workspace.js';

function workspace(): string {
  return sheetPartsWorkspace(
    { base: 'export const base = 1;\n', main: "import '@demo/lib/base';\nimport 'uikit';\nimport './app.css';\nexport const main = 1;\n" },
    // No sheet yet: one part.
    { 'index.js': 'export const kit = true;\n' },
  );
}

/** The page's stylesheet links: each part of the joined sheet by its `part`, a CDN's by what it names. */
const linksOf = (html: string) =>
  [...html.matchAll(/<link rel="stylesheet" href="([^"]+)" data-core-(bundle|cdn-styles)="([^"]+)"/g)].map(([, href, kind, named]) => (kind === 'bundle' ? `part ${new URL(href!.replace(/&amp;/g, '&'), 'http://x').searchParams.get('part') ?? '0'}` : `cdn ${named}`));

const hrefOf = (html: string, part: string) => [...html.matchAll(/<link rel="stylesheet" href="([^"]+)" data-core-bundle=/g)].map(([, href]) => href!.replace(/&amp;/g, '&')).find((href) => (new URL(href, 'http://x').searchParams.get('part') ?? '0') === part)!;

describe('the parts of the bundled preview\'s joined sheet', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    root = workspace();
    service = await serve(root, { cdnOrigin: 'local' });
  });
  after(async function () {
    await service?.close();
  });

  it('cuts the joined sheet anew when an installed package starts importing a sheet, with no build of the workspace', async function () {
    const first = await service.get('/preview/bundled/');
    expect([first.status, linksOf(first.text)]).to.deep.equal([200, ['part 0']]);
    write(root, 'node_modules/uikit/uikit.css', '.btn { color: rgb(0, 0, 255); }\n');
    write(root, 'node_modules/uikit/index.js', "import './uikit.css';\nexport const kit = true;\n");
    const second = await service.get('/preview/bundled/');
    expect([second.status, linksOf(second.text)]).to.deep.equal([200, ['part 0', 'cdn uikit', 'part 1']]);
    const parts = await Promise.all(['0', '1'].map((part) => service.get(hrefOf(second.text, part))));
    expect(parts.map((answer) => answer.status)).to.deep.equal([200, 200]);
    expect(parts[0]!.text).to.include('outline-color').and.not.include('rgb(0, 128, 0)');
    expect(parts[1]!.text).to.include('rgb(0, 128, 0)').and.not.include('outline-color');
  });

  it('answers each part at its plain address, refuses a part that is no number, and says a part the page no longer has is not kept', async function () {
    const html = (await service.get('/preview/bundled/')).text;
    const plain = (part: string) => hrefOf(html, part).replace(/&v=[^&]+/, '');
    const current = await service.get(plain('1'));
    expect([current.status, current.text.includes('rgb(0, 128, 0)')]).to.deep.equal([200, true]);
    const entry = encodeURIComponent('@demo/app/main');
    const refused = await Promise.all(['part=x', 'part=1&part=1', 'part=01'].map((query) => service.get(`/preview/bundled/styles.css?entry=${entry}&${query}`)));
    expect(refused.map((answer) => [answer.status, answer.json<{ code: string }>().code])).to.deep.equal([
      [400, 'OPTION_UNSUPPORTED'],
      [400, 'OPTION_UNSUPPORTED'],
      [400, 'OPTION_UNSUPPORTED'],
    ]);
    const gone = await service.get(`/preview/bundled/styles.css?entry=${entry}&part=2`);
    expect([gone.status, gone.json<{ code: string }>().code]).to.deep.equal([404, 'OUTPUT_NOT_AVAILABLE']);
  });
});
