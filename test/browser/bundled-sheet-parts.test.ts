// The bundled preview's joined sheet in parts (README "The bundled preview"): a CDN's sheet that
// `/preview/` links between two development sheets keeps that place on `/preview/bundled/`, the
// development sheets before it in one part and those after it in another, so both pages show the
// same cascade; an edit of a sheet swaps its part alone, in its place, with no reload.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { chromiumForSuite, eventsOpen, openPage, type Watched } from '../helpers/chromium.js';
import { write } from '../helpers/edit.js';
import { serve } from '../helpers/service.js';
import { sheetPartsWorkspace } from '../helpers/sheet-parts-workspace.js';

const SHOW = "document.body.insertAdjacentHTML('beforeend', `<button id=\"b\" class=\"${cls}\">b</button>`);\ndocument.body.dataset.shown = 'yes';\n";

// The app imports a workspace library's module, then an installed package, then its own sheet:
// every bundler joins base.css, uikit.css, app.css. uikit's outline wins over base's, the app's
// colour over uikit's: each a tie of specificity the order decides.
function workspace(): string {
  return sheetPartsWorkspace(
    { base: "export const cls = 'btn';\n", main: `import { cls } from '@demo/lib/base';\nimport 'uikit';\nimport './app.css';\n${SHOW}` },
    { 'index.js': "import './uikit.css';\nexport const kit = true;\n", 'uikit.css': '.btn { color: rgb(0, 0, 255); outline-color: rgb(0, 0, 255); }\n' },
  );
}

interface Looks {
  color: string;
  outline: string;
  border: string;
}

const looksOf = (page: Page): Promise<Looks> =>
  page.evaluate(() => {
    const style = getComputedStyle(document.querySelector('#b')!);
    return { color: style.color, outline: style.outlineColor, border: style.borderTopColor };
  });

/** The page's stylesheet links in order: `bundle <part>` for a part of the joined sheet (by its `part`), the CDN's by what they name. */
const linksOf = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLLinkElement>('link[rel=stylesheet]')].map((link) =>
      link.dataset.coreBundle !== undefined ? `bundle ${new URL(link.href).searchParams.get('part') ?? '0'}` : link.dataset.coreCdnStyles !== undefined ? `cdn ${link.dataset.coreCdnStyles}` : `module ${link.dataset.coreStyles}`,
    ),
  );

describe('the bundled preview joins its sheets in parts around a CDN sheet, in Chromium', function () {
  const browser = chromiumForSuite();
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    root = workspace();
    service = await serve(root, { cdnOrigin: 'local' });
  });
  after(async function () {
    await service?.close();
  });

  async function shown(path: string): Promise<Watched> {
    const watched = await openPage(browser());
    await watched.page.goto(new URL(path, service.url).href, { waitUntil: 'load' });
    await watched.page.waitForFunction(() => document.body.dataset.shown === 'yes', null, { timeout: 30_000 });
    return watched;
  }

  it('shows on /preview/bundled/ the looks /preview/ shows: the CDN sheet between the two parts', async function () {
    const seen: Record<string, { looks: Looks; links: string[]; problems: string[] }> = {};
    for (const path of ['/preview/', '/preview/bundled/']) {
      const watched = await shown(path);
      try {
        seen[path] = { looks: await looksOf(watched.page), links: await linksOf(watched.page), problems: [...watched.errors, ...watched.failed] };
      } finally {
        await watched.page.close();
      }
    }
    const looks = { color: 'rgb(0, 128, 0)', outline: 'rgb(0, 0, 255)', border: 'rgb(0, 0, 0)' };
    expect(seen['/preview/']).to.deep.equal({ looks, links: ['module @demo/lib@1.0.0/base', 'cdn uikit', 'module @demo/app@1.0.0/main'], problems: [] });
    expect(seen['/preview/bundled/']).to.deep.equal({ looks, links: ['bundle 0', 'cdn uikit', 'bundle 1'], problems: [] });
  });

  it('swaps the part holding an edited sheet alone, in its place, without a reload and never unstyled', async function () {
    const watched = await shown('/preview/bundled/');
    try {
      await eventsOpen(watched);
      const navigations = watched.navigations();
      // From now on, at every change of the document and every frame, the colour stays one of the app's.
      await watched.page.evaluate(() => {
        const unstyled: string[] = [];
        (window as unknown as { unstyled: string[] }).unstyled = unstyled;
        const check = (when: string) => {
          const { color, outlineColor } = getComputedStyle(document.querySelector('#b')!);
          if (!['rgb(0, 128, 0)', 'rgb(0, 100, 0)'].includes(color) || outlineColor !== 'rgb(0, 0, 255)') unstyled.push(`${when}: ${color}, ${outlineColor}`);
        };
        new MutationObserver(() => check('after a mutation')).observe(document, { childList: true, subtree: true, attributes: true });
        const frame = () => {
          check('at a frame');
          requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      });
      const hrefs = () => watched.page.evaluate(() => [...document.querySelectorAll<HTMLLinkElement>('link[data-core-bundle]')].map((link) => link.href));
      const [first, second] = await hrefs();

      write(root, 'packages/app/app.css', '.btn { color: rgb(0, 100, 0); }\n');
      await watched.page.waitForFunction(() => getComputedStyle(document.querySelector('#b')!).color === 'rgb(0, 100, 0)', null, { timeout: 30_000, polling: 50 });
      await watched.page.waitForFunction(() => document.querySelectorAll('link[data-core-bundle]').length === 2, null, { timeout: 10_000 });
      const afterApp = await hrefs();
      expect(afterApp[0], 'the first part, unchanged, is kept').to.equal(first);
      expect(afterApp[1], 'the second part is swapped').to.not.equal(second);

      write(root, 'packages/lib/base.css', '.btn { outline-color: rgb(255, 0, 0); border-top-color: rgb(1, 1, 1); }\n');
      await watched.page.waitForFunction(() => getComputedStyle(document.querySelector('#b')!).borderTopColor === 'rgb(1, 1, 1)', null, { timeout: 30_000, polling: 50 });
      await watched.page.waitForFunction(() => document.querySelectorAll('link[data-core-bundle]').length === 2, null, { timeout: 10_000 });
      const afterBase = await hrefs();
      expect(afterBase[0], 'the first part is swapped').to.not.equal(first);
      expect(afterBase[1], 'the second part, unchanged since, is kept').to.equal(afterApp[1]);

      expect({ looks: await looksOf(watched.page), links: await linksOf(watched.page) }).to.deep.equal({
        looks: { color: 'rgb(0, 100, 0)', outline: 'rgb(0, 0, 255)', border: 'rgb(1, 1, 1)' },
        links: ['bundle 0', 'cdn uikit', 'bundle 1'],
      });
      expect(watched.navigations(), 'no reload').to.equal(navigations);
      expect(await watched.page.evaluate(() => (window as unknown as { unstyled: string[] }).unstyled)).to.deep.equal([]);
      expect([...watched.errors, ...watched.failed]).to.deep.equal([]);
    } finally {
      await watched.page.close();
    }
  });
});
