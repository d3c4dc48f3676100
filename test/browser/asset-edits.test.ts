// A declared asset edited on disk while a page is open (README "Preview and stylesheet push"): the
// open page ends as a fresh load would. An asset a stylesheet names is swapped in place (the sheet
// names it by its content's version, a new address: Chromium keeps an image by its address for the
// document's life, whatever its answer's cache headers say); one the code imports, itself or through
// a shared file, reloads the page, as a code edit does; the same bytes saved tell nothing; a deleted
// one makes its module invalid, and the open page shows why. On /preview/ and on the bundled preview alike.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { eventsOpen, chromiumForSuite, openPage, pushedSince, until, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace, writeFile } from '../helpers/workspace.js';
import { BLUE, GREEN, RED, backgroundAddress, colourAt, square } from '../helpers/pixels.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const MAIN = '@a/app@1.0.0/main';

function assetWorkspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app'], preview: '@a/app/main' }),
    // Both entries beside one module.json: helper.ts is shared by the two modules (README "Shared files").
    'packages/app/package.json': json({ name: '@a/app', version: '1.0.0', exports: { './main': './main/index.ts', './nested/other': './main/other.ts' } }),
    'packages/app/main/module.json': json({ platforms: ['web'], assets: ['bg.svg', 'dot.svg', 'logo.svg', 'star.svg'] }),
    'packages/app/main/bg.svg': square('red'),
    'packages/app/main/dot.svg': square('blue'),
    'packages/app/main/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"><title>logo one</title></svg>',
    'packages/app/main/star.svg': '<svg xmlns="http://www.w3.org/2000/svg"><title>star one</title></svg>',
    'packages/app/main/main.css': '#box { width: 10px; height: 10px; background: url(bg.svg); }\n',
    'packages/app/main/helper.ts': "import star from './star.svg';\nexport const starUrl: string = star;\n",
    'packages/app/main/other.ts': "import { starUrl } from './helper.ts';\nexport const other = starUrl;\n",
    'packages/app/main/index.ts': [
      "import './main.css';",
      "import logo from './logo.svg';",
      "import { starUrl } from './helper.ts';",
      "const box = document.createElement('div');",
      "box.id = 'box';",
      'document.body.append(box);',
      'const title = async (address: string) => /<title>([^<]*)/.exec(await (await fetch(address)).text())?.[1];',
      '(window as unknown as { seen: () => Promise<unknown> }).seen = async () => ({ logo: await title(logo), star: await title(starUrl) });',
      "document.body.dataset.ok = 'yes';",
      '',
    ].join('\n'),
  });
}

/** What the page shows: the colour of a pixel of the box's background image, as its style names it, and the titles its code fetches. */
async function shown(watched: Watched): Promise<{ background: string; logo: string; star: string }> {
  await watched.page.waitForFunction(() => document.body.dataset.ok === 'yes', undefined, { timeout: 30_000 });
  const { background } = await colourAt(watched.page, { background: await backgroundAddress(watched.page, '#box') });
  const { logo, star } = await watched.page.evaluate(() => (window as unknown as { seen: () => Promise<{ logo: string; star: string }> }).seen());
  return { background, logo, star };
}

describe('a declared asset edited while a page is open', function () {
  this.timeout(120_000);
  const browser = chromiumForSuite();

  for (const address of ['/preview/', '/preview/bundled/']) {
    it(`ends on ${address} as a fresh load: a sheet's asset swapped in place, a code asset reloads, the same bytes tell nothing, a deleted one is invalid`, async () => {
      const root = assetWorkspace();
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
      try {
        await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
        expect(await shown(watched)).to.deep.equal({ background: RED, logo: 'logo one', star: 'star one' });
        await eventsOpen(watched);
        await watched.page.evaluate(() => void ((window as unknown as { kept: string }).kept = 'window state'));

        // The sheet's asset: a `styles` message, the new image in place, no reload.
        writeFile(root, 'packages/app/main/bg.svg', square('blue'));
        await watched.page.waitForFunction(() => document.querySelectorAll('link[rel=stylesheet]').length === 1 && /v=/.test(getComputedStyle(document.querySelector('#box')!).backgroundImage), undefined, { timeout: 30_000 });
        await until(() => watched.messages.some((message) => message.type === 'styles' && message.module === MAIN), 'a styles message', 30_000);
        await watched.page.waitForFunction(
          async () => {
            const address = /url\("([^"]+)"\)/.exec(getComputedStyle(document.querySelector('#box')!).backgroundImage)?.[1];
            const answer = address ? await fetch(address) : null;
            return !!answer && (await answer.text()).includes('blue');
          },
          undefined,
          { timeout: 30_000, polling: 100 },
        );
        expect(await shown(watched)).to.deep.equal({ background: BLUE, logo: 'logo one', star: 'star one' });
        expect(await watched.page.evaluate(() => (window as unknown as { kept?: string }).kept)).to.equal('window state');
        expect(watched.navigations()).to.equal(1);
        expect(watched.messages.map((message) => message.type)).to.not.include('code');
        expect(await fresh()).to.deep.equal({ background: BLUE, logo: 'logo one', star: 'star one' });

        // An asset the code imports: `code`, and the page reloads into the new bytes.
        writeFile(root, 'packages/app/main/logo.svg', '<svg xmlns="http://www.w3.org/2000/svg"><title>logo two</title></svg>');
        await until(() => watched.navigations() === 2, 'the reload for the code asset', 30_000);
        expect(watched.messages.filter((message) => message.type === 'code').map((message) => message.module)).to.deep.equal([MAIN]);
        expect(await shown(watched)).to.deep.equal({ background: BLUE, logo: 'logo two', star: 'star one' });
        expect(await fresh()).to.deep.equal({ background: BLUE, logo: 'logo two', star: 'star one' });

        // An asset a shared file imports: each importer's code changed, the page reloads.
        await eventsOpen(watched);
        writeFile(root, 'packages/app/main/star.svg', '<svg xmlns="http://www.w3.org/2000/svg"><title>star two</title></svg>');
        await until(() => watched.navigations() === 3, 'the reload for the shared file asset', 30_000);
        expect(await shown(watched)).to.deep.equal({ background: BLUE, logo: 'logo two', star: 'star two' });
        expect(await fresh()).to.deep.equal({ background: BLUE, logo: 'logo two', star: 'star two' });

        // The sheet itself edited (rebuilt alone) to name another asset: that one is an input of its build now.
        await eventsOpen(watched);
        writeFile(root, 'packages/app/main/main.css', '#box { width: 10px; height: 10px; color: rgb(1, 2, 3); background: url(dot.svg); }\n');
        await watched.page.waitForFunction(() => getComputedStyle(document.querySelector('#box')!).color === 'rgb(1, 2, 3)', undefined, { timeout: 30_000 });

        // The same bytes saved again tell nothing: the next change's message is the first heard.
        const heard = watched.messages.length;
        writeFile(root, 'packages/app/main/dot.svg', square('blue'));
        writeFile(root, 'packages/app/main/logo.svg', '<svg xmlns="http://www.w3.org/2000/svg"><title>logo two</title></svg>');
        expect((await service.report()).modules.map((module) => module.status)).to.deep.equal(['valid', 'valid']);
        writeFile(root, 'packages/app/main/dot.svg', square('green'));
        // The sheet pushed, and the asset's plain address told (README "Preview and stylesheet push")
        // at both modules declaring it (one module.json beside both entries), in either module's turn.
        await until(() => pushedSince(watched, heard).length >= 3, 'the messages of the next change', 30_000);
        expect(pushedSince(watched, heard).map((message) => [message.type, message.module, message.type === 'asset' ? message.href : '']).sort()).to.deep.equal([
          ['asset', MAIN, '/m/@a/app@1.0.0/assets/main/dot.svg'],
          ['asset', '@a/app@1.0.0/nested/other', '/m/@a/app@1.0.0/assets/nested/other/dot.svg'],
          ['styles', MAIN, ''],
        ]);
        await watched.page.waitForFunction(
          async () => {
            const address = /url\("([^"]+)"\)/.exec(getComputedStyle(document.querySelector('#box')!).backgroundImage)?.[1];
            return !!address && (await (await fetch(address)).text()).includes('green');
          },
          undefined,
          { timeout: 30_000, polling: 100 },
        );
        expect(await shown(watched)).to.deep.equal({ background: GREEN, logo: 'logo two', star: 'star two' });
        expect(watched.navigations()).to.equal(3);

        // A deleted asset: its module is invalid (MANIFEST_INVALID at its module.json), its address
        // answers 404, never the bytes it had, and the open page is told, as a fresh load shows it.
        fs.rmSync(path.join(root, 'packages/app/main/logo.svg'));
        await until(() => watched.messages.some((message) => message.type === 'invalid' && message.module === MAIN), 'an invalid message', 30_000);
        await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('MANIFEST_INVALID'), undefined, { timeout: 30_000 });
        const main = (await service.report()).modules.find((module) => module.specifier === '@a/app/main');
        expect([main?.status, main?.diagnostics.map((diagnostic) => diagnostic.kind)]).to.deep.equal(['invalid', ['MANIFEST_INVALID']]);
        expect((await service.get('/m/@a/app@1.0.0/assets/main/logo.svg')).status).to.equal(404);
        expect(watched.errors).to.deep.equal([]);
      } finally {
        await watched.page.close();
        await service.close();
      }
    });
  }

  it('asset answers at a versioned address are revalidated, never kept as immutable; production outputs carry no version', async () => {
    const root = assetWorkspace();
    const service = await serve(root);
    try {
      const sheet = (await service.get('/m/@a/app@1.0.0/styles/main')).text;
      const versioned = /url\(([^)]*bg\.svg\?v=[^)]+)\)/.exec(sheet)?.[1];
      expect(versioned, sheet).to.be.a('string');
      const answer = await service.get(new URL(versioned!, new URL('/m/@a/app@1.0.0/styles/main', service.url)).pathname + new URL(versioned!, 'http://x/').search);
      expect(answer.status).to.equal(200);
      expect(answer.headers['cache-control']).to.equal('no-cache');
      expect((await service.get('/m/@a/app@1.0.0/styles/main?env=production')).text).to.include('url(../assets/main/bg.svg)').and.not.include('v=');
      const code = (await service.get('/m/@a/app@1.0.0/modules/main?env=production')).text;
      expect(code).to.include('"../assets/main/logo.svg"').and.not.include('?v=');
    } finally {
      await service.close();
    }
  });
});
