// The two shapes of a declared asset's reference that carried no version (README "Workspaces",
// "Preview and stylesheet push"): a string of `image-set()` (`image-set("dot.svg" 1x)`), and the
// asset's address written as such (`image-set("/m/@a/app@1.0.0/assets/main/bg.svg" 1x)` in a sheet,
// `new URL('../assets/main/logo.svg', import.meta.url)` or from the origin's root in code). The
// asset file alone replaced while a page is open: the page ends as a fresh load would, its sheet
// swapped in place or its code reloaded, as the other shapes do; production outputs stay as written.
import { expect } from 'chai';
import { eventsOpen, chromiumForSuite, openPage, pushedSince, until, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace, writeFile } from '../helpers/workspace.js';
import { BLUE, GREEN, RED, backgroundAddress, colourAt, square } from '../helpers/pixels.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const MAIN = '@a/app@1.0.0/main';
const SHEET = [
  '#set, #root { width: 10px; height: 10px; }',
  '#set { background-image: image-set("dot.svg" 1x); }',
  '#root { background-image: -webkit-image-set("/m/@a/app@1.0.0/assets/main/bg.svg" 1x); }',
  '',
].join('\n');

function addressWorkspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app'], preview: '@a/app/main' }),
    'packages/app/package.json': json({ name: '@a/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
    'packages/app/main/module.json': json({ platforms: ['web'], assets: ['bg.svg', 'dot.svg', 'logo.svg', 'star.svg'] }),
    'packages/app/main/bg.svg': square('red'),
    'packages/app/main/dot.svg': square('red'),
    'packages/app/main/logo.svg': square('red'),
    'packages/app/main/star.svg': square('red'),
    'packages/app/main/main.css': SHEET,
    'packages/app/main/index.ts': [
      "import './main.css';",
      "for (const id of ['set', 'root']) {",
      "  const box = document.createElement('div');",
      '  box.id = id;',
      '  document.body.append(box);',
      '}',
      '(window as unknown as { written: Record<string, string> }).written = {',
      "  logo: new URL('../assets/main/logo.svg', import.meta.url).href,",
      "  star: new URL('/m/@a/app@1.0.0/assets/main/star.svg', import.meta.url).href,",
      '};',
      "document.body.dataset.ok = 'yes';",
      '',
    ].join('\n'),
  });
}

type Shown = { set: string; root: string; logo: string; star: string };

/**
 * What the page shows: the colour of a pixel of each box's background image, at the address its
 * computed style names, and of each image its code names; the image is drawn from what the page
 * holds for that address (its memory cache included), as an element showing it would.
 */
async function shown(watched: Watched): Promise<Shown> {
  await watched.page.waitForFunction(() => document.body.dataset.ok === 'yes', undefined, { timeout: 30_000 });
  const { logo, star } = await watched.page.evaluate(() => (window as unknown as { written: Record<string, string> }).written);
  return colourAt(watched.page, { set: await backgroundAddress(watched.page, '#set'), root: await backgroundAddress(watched.page, '#root'), logo, star });
}

// Whether the bytes answered at the address the box's style names now hold `fill`.
const backgroundHolds = (watched: Watched, id: string, fill: string) =>
  watched.page.waitForFunction(
    async ([id, fill]) => {
      const address = /url\("([^"]+)"\)/.exec(getComputedStyle(document.getElementById(id)!).backgroundImage)?.[1];
      return !!address && (await (await fetch(address)).text()).includes(fill);
    },
    [id, fill] as const,
    { timeout: 30_000, polling: 100 },
  );

describe('an image-set() string and an asset address written as such carry the asset version', function () {
  this.timeout(180_000);
  const browser = chromiumForSuite();

  for (const address of ['/preview/', '/preview/bundled/']) {
    it(`on ${address}: the asset file alone replaced, the open page shows the new image, as /state and the push say`, async () => {
      const root = addressWorkspace();
      const service = await serve(root);
      const watched = await openPage(browser());
      const fresh = async () => {
        const page = await openPage(browser());
        await page.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
        try {
          return await shown(page);
        } finally {
          await page.page.close();
        }
      };
      // The sheet's message, then the asset's plain address (README "Preview and stylesheet push"):
      // this page fetched it only at its versioned address, so it swaps the sheet and reloads nothing.
      const heardSince = async (count: number, type: string, asset: string) => {
        await until(() => pushedSince(watched, count).some((message) => message.type === 'asset'), `a ${type} message and the asset's`, 30_000);
        expect(pushedSince(watched, count).map((message) => [message.type, message.module, message.type === 'asset' ? message.href : ''])).to.deep.equal([
          [type, MAIN, ''],
          ['asset', MAIN, `/m/@a/app@1.0.0/assets/main/${asset}`],
        ]);
        expect((await service.report()).modules.map((module) => [module.specifier, module.status, module.diagnostics])).to.deep.equal([['@a/app/main', 'valid', []]]);
      };
      try {
        await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
        expect(await shown(watched)).to.deep.equal({ set: RED, root: RED, logo: RED, star: RED });
        await eventsOpen(watched);
        await watched.page.evaluate(() => void ((window as unknown as { kept: string }).kept = 'window state'));

        // A string of image-set(): a styles message, the new image in place, no reload.
        let heard = watched.messages.length;
        writeFile(root, 'packages/app/main/dot.svg', square('blue'));
        await heardSince(heard, 'styles', 'dot.svg');
        await backgroundHolds(watched, 'set', 'blue');
        expect(await shown(watched)).to.deep.equal({ set: BLUE, root: RED, logo: RED, star: RED });

        // The asset's address from the origin's root in an image-set(): alike.
        heard = watched.messages.length;
        writeFile(root, 'packages/app/main/bg.svg', square('blue'));
        await heardSince(heard, 'styles', 'bg.svg');
        await backgroundHolds(watched, 'root', 'blue');
        expect(await shown(watched)).to.deep.equal({ set: BLUE, root: BLUE, logo: RED, star: RED });
        expect(await watched.page.evaluate(() => (window as unknown as { kept?: string }).kept)).to.equal('window state');
        expect(watched.navigations()).to.equal(1);
        expect(await fresh()).to.deep.equal({ set: BLUE, root: BLUE, logo: RED, star: RED });

        // The sheet edited (rebuilt alone, a transform: it writes no url()), then its asset again:
        // the asset stays an input of the sheet rebuilt alone.
        writeFile(root, 'packages/app/main/main.css', `${SHEET}#set { color: rgb(1, 2, 3); }\n`);
        await watched.page.waitForFunction(() => getComputedStyle(document.getElementById('set')!).color === 'rgb(1, 2, 3)', undefined, { timeout: 30_000 });
        heard = watched.messages.length;
        writeFile(root, 'packages/app/main/dot.svg', square('green'));
        await heardSince(heard, 'styles', 'dot.svg');
        await backgroundHolds(watched, 'set', 'green');
        expect(await shown(watched)).to.deep.equal({ set: GREEN, root: BLUE, logo: RED, star: RED });
        expect(watched.navigations()).to.equal(1);

        // The asset's address written in code, relative to the module's: the code changes, the page reloads.
        heard = watched.messages.length;
        writeFile(root, 'packages/app/main/logo.svg', square('blue'));
        await until(() => watched.navigations() === 2, 'the reload for the asset named by its address', 30_000);
        // The asset's message after it may reach the page it left, or not: the reload is the code's.
        expect(pushedSince(watched, heard).filter((message) => message.type !== 'asset').map((message) => [message.type, message.module])).to.deep.equal([['code', MAIN]]);
        expect(await shown(watched)).to.deep.equal({ set: GREEN, root: BLUE, logo: BLUE, star: RED });

        // And from the origin's root.
        await eventsOpen(watched);
        heard = watched.messages.length;
        writeFile(root, 'packages/app/main/star.svg', square('blue'));
        await until(() => watched.navigations() === 3, 'the reload for the asset named from the origin root', 30_000);
        expect(pushedSince(watched, heard).filter((message) => message.type !== 'asset').map((message) => [message.type, message.module])).to.deep.equal([['code', MAIN]]);
        expect(await shown(watched)).to.deep.equal({ set: GREEN, root: BLUE, logo: BLUE, star: BLUE });
        expect(await fresh()).to.deep.equal({ set: GREEN, root: BLUE, logo: BLUE, star: BLUE });
        expect((await service.report()).modules.map((module) => module.status)).to.deep.equal(['valid']);
        expect(watched.errors).to.deep.equal([]);
      } finally {
        await watched.page.close();
        await service.close();
      }
    });
  }

  it('development outputs write the versions; production outputs write no version, and the address from the origin\'s root relative (README "Workspaces")', async () => {
    const root = addressWorkspace();
    const service = await serve(root);
    try {
      const sheet = (await service.get('/m/@a/app@1.0.0/styles/main')).text;
      expect(sheet).to.match(/image-set\(url\(\.\.\/assets\/main\/dot\.svg\?v=[\w-]{22}\) 1x\)/);
      expect(sheet).to.match(/image-set\("\/m\/@a\/app@1\.0\.0\/assets\/main\/bg\.svg\?v=[\w-]{22}" 1x\)/);
      const code = (await service.get('/m/@a/app@1.0.0/modules/main')).text;
      expect(code).to.match(/new URL\("\.\.\/assets\/main\/logo\.svg\?v=[\w-]{22}", import\.meta\.url\)/);
      expect(code).to.match(/new URL\("\/m\/@a\/app@1\.0\.0\/assets\/main\/star\.svg\?v=[\w-]{22}", import\.meta\.url\)/);
      const productionSheet = (await service.get('/m/@a/app@1.0.0/styles/main?env=production')).text;
      expect(productionSheet).to.include('image-set(url(../assets/main/dot.svg) 1x)').and.include('image-set("../assets/main/bg.svg" 1x)').and.not.include('v=').and.not.include('/m/');
      const productionCode = (await service.get('/m/@a/app@1.0.0/modules/main?env=production')).text;
      expect(productionCode).to.include('"../assets/main/logo.svg"').and.include('"../assets/main/star.svg"').and.not.include('?v=').and.not.include('/m/');
    } finally {
      await service.close();
    }
  });
});
