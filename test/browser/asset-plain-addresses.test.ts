// The declared assets whose references carry no version (README "Preview and stylesheet push"): a
// plain string holding the address (an `<img>`'s `src`, a template literal given to `fetch`),
// another module's asset named by its address, an address in a shared file's code, and a CSS
// module script's `url()`. Chromium keeps an image by its address for as long as the page lives:
// before, an edit of such an asset told the open page nothing, and it kept the old image (and the
// old bytes it had fetched) while a fresh load showed the new. Now the page that fetched the plain
// address reloads, and ends as a fresh load would; a page that fetched no such address is left be.
import { expect } from 'chai';
import { eventsOpen, chromiumForSuite, openPage, overlayTextOf, until, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace, writeFile } from '../helpers/workspace.js';
import { BLUE, RED, colourAt, square } from '../helpers/pixels.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const MAIN = '@a/app@1.0.0/main';
const OTHER = '@a/app@1.0.0/other';

function plainWorkspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app'], preview: '@a/app/main' }),
    'packages/app/package.json': json({ name: '@a/app', version: '1.0.0', exports: { './main': './main/index.ts', './other': './other/index.ts' } }),
    'packages/app/main/module.json': json({ platforms: ['web'], assets: ['logo.svg', 'data.json', 'card.css', 'bg.svg', 'star.svg', 'unused.svg'] }),
    'packages/app/other/module.json': json({ platforms: ['web'], assets: ['pic.svg'] }),
    'packages/app/main/logo.svg': square('red'),
    'packages/app/main/bg.svg': square('red'),
    'packages/app/main/star.svg': square('red'),
    'packages/app/main/unused.svg': square('red'),
    'packages/app/main/data.json': '{"colour":"red"}\n',
    'packages/app/main/card.css': '#card { width: 10px; height: 10px; background-image: url(bg.svg); }\n',
    'packages/app/other/pic.svg': square('red'),
    // A shared file: both modules import it (README "Shared files").
    'packages/app/lib/paths.ts': "export const starAddress = '/m/@a/app@1.0.0/assets/main/star.svg';\n",
    'packages/app/other/index.ts': "import { starAddress } from '../lib/paths.ts';\nexport const other = starAddress;\n",
    'packages/app/main/index.ts': [
      "import sheet from './card.css' with { type: 'css' };",
      "import { starAddress } from '../lib/paths.ts';",
      "const version = '1.0.0';",
      'const images = {',
      "  logo: '/m/@a/app@1.0.0/assets/main/logo.svg',",
      "  pic: '/m/@a/app@1.0.0/assets/other/pic.svg',",
      '  star: starAddress,',
      '};',
      'for (const [id, address] of Object.entries(images)) {',
      "  const image = document.createElement('img');",
      '  image.id = id;',
      '  image.src = address;',
      '  document.body.append(image);',
      '  await image.decode();',
      '}',
      "const host = document.createElement('div');",
      'document.body.append(host);',
      "const shadow = host.attachShadow({ mode: 'open' });",
      'shadow.adoptedStyleSheets = [sheet];',
      "shadow.innerHTML = '<div id=\"card\"></div>';",
      'const data = await (await fetch(`/m/@a/app@${version}/assets/main/data.json`)).text();',
      "const card = /url\\(\"([^\"]+)\"\\)/.exec(getComputedStyle(shadow.getElementById('card')!).backgroundImage)?.[1];",
      '(window as unknown as { written: Record<string, string | undefined> }).written = { ...images, card, data };',
      "document.body.dataset.ok = 'yes';",
      '',
    ].join('\n'),
  });
}

type Shown = { logo: string; pic: string; star: string; card: string; data: string };

/** What the page shows: the colour of each image at the address it names (from what the page holds for it), and the data it fetched. */
async function shown(watched: Watched): Promise<Shown> {
  await watched.page.waitForFunction(() => document.body.dataset.ok === 'yes', undefined, { timeout: 30_000 });
  const { data, ...images } = await watched.page.evaluate(() => (window as unknown as { written: Record<string, string | undefined> }).written);
  const colours = await colourAt(watched.page, images as Record<'logo' | 'pic' | 'star' | 'card', string | undefined>);
  return { ...colours, data: JSON.parse(data!).colour };
}

const ALL_RED: Shown = { logo: RED, pic: RED, star: RED, card: RED, data: 'red' };

/** One form each: the file replaced, the module whose asset it is, what the page shows after. */
const CASES: { form: string; file: string; content: string; module: string; href: string; after: Partial<Shown> }[] = [
  { form: "a plain string in the module's code", file: 'main/logo.svg', content: square('blue'), module: MAIN, href: '/m/@a/app@1.0.0/assets/main/logo.svg', after: { logo: BLUE } },
  { form: 'bytes fetched by a template literal', file: 'main/data.json', content: '{"colour":"blue"}\n', module: MAIN, href: '/m/@a/app@1.0.0/assets/main/data.json', after: { data: 'blue' } },
  { form: 'another module (one the page does not load) named by its address', file: 'other/pic.svg', content: square('blue'), module: OTHER, href: '/m/@a/app@1.0.0/assets/other/pic.svg', after: { pic: BLUE } },
  { form: "an address in a shared file's code", file: 'main/star.svg', content: square('blue'), module: MAIN, href: '/m/@a/app@1.0.0/assets/main/star.svg', after: { star: BLUE } },
  { form: "a CSS module script's url()", file: 'main/bg.svg', content: square('blue'), module: MAIN, href: '/m/@a/app@1.0.0/assets/main/bg.svg', after: { card: BLUE } },
];

describe('a declared asset named by no versioned reference: an open page that fetched it ends as a fresh load would', function () {
  this.timeout(120_000);
  const browser = chromiumForSuite();

  /** The service on a new workspace, a page open on `address`, all red, listening. */
  async function opened(address: string) {
    const root = plainWorkspace();
    const service = await serve(root);
    const watched = await openPage(browser());
    await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
    expect(await shown(watched)).to.deep.equal(ALL_RED);
    await eventsOpen(watched);
    const fresh = async () => {
      const page = await openPage(browser());
      await page.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
      try {
        return await shown(page);
      } finally {
        await page.page.close();
      }
    };
    const close = async () => {
      await watched.page.close();
      await service.close();
    };
    return { root, service, watched, fresh, close };
  }

  // The push messages heard since `from`, without the greeting of a reloaded page's new connection.
  const pushedSince = (watched: Watched, from: number) => watched.messages.slice(from).filter((message) => message.type !== 'hello');

  for (const address of ['/preview/', '/preview/bundled/']) {
    for (const { form, file, content, module, href, after } of CASES) {
      it(`on ${address}: ${form}, replaced: the open page reloads once and shows what a fresh page shows`, async () => {
        const { root, service, watched, fresh, close } = await opened(address);
        try {
          const heard = watched.messages.length;
          writeFile(root, `packages/app/${file}`, content);
          // What a page loaded now shows (the service answers what is on disk).
          const expected = { ...ALL_RED, ...after };
          const now = await fresh();
          expect(now).to.deep.equal(expected);
          // The open page ends as that fresh one: it reloads (a page that runs keeps the old image).
          let last: Shown | string = 'not looked at';
          const deadline = Date.now() + 30_000;
          while (Date.now() < deadline) {
            last = await shown(watched).catch((error: Error) => error.message);
            if (JSON.stringify(last) === JSON.stringify(expected)) break;
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
          expect(last, 'what the open page shows').to.deep.equal(expected);
          expect(watched.navigations()).to.equal(2);
          expect(pushedSince(watched, heard).map((message) => [message.type, message.module, message.href])).to.deep.equal([['asset', module, href]]);
          expect((await service.report()).modules.map((m) => [m.specifier, m.status, m.diagnostics])).to.deep.equal([
            ['@a/app/main', 'valid', []],
            ['@a/app/other', 'valid', []],
          ]);
          expect(watched.errors).to.deep.equal([]);
        } finally {
          await close();
        }
      });
    }
  }

  it('an asset the page never fetched is told, and leaves the page be; the same bytes saved again tell nothing', async () => {
    const { root, watched, close } = await opened('/preview/');
    try {
      const kept = () => watched.page.evaluate(() => (window as unknown as { kept?: string }).kept);
      await watched.page.evaluate(() => void ((window as unknown as { kept: string }).kept = 'window state'));
      let heard = watched.messages.length;
      writeFile(root, 'packages/app/main/unused.svg', square('blue'));
      await until(() => pushedSince(watched, heard).length > 0, 'the message of the asset no page fetched', 30_000);
      expect(pushedSince(watched, heard).map((message) => [message.type, message.module])).to.deep.equal([['asset', MAIN]]);
      // The same bytes again, then an asset the page fetched: the one message heard is that one's,
      // and its reload the only one (the messages come in order; a reload for the first would come first).
      heard = watched.messages.length;
      writeFile(root, 'packages/app/main/unused.svg', square('blue'));
      writeFile(root, 'packages/app/main/logo.svg', square('blue'));
      await until(() => watched.navigations() === 2, 'the reload for the logo', 30_000);
      expect(pushedSince(watched, heard).map((message) => [message.type, message.href])).to.deep.equal([['asset', '/m/@a/app@1.0.0/assets/main/logo.svg']]);
      expect(await shown(watched)).to.deep.equal({ ...ALL_RED, logo: BLUE });
      expect(await kept(), 'the window state a reload drops').to.equal(undefined);
      expect(watched.navigations()).to.equal(2);
    } finally {
      await close();
    }
  });

  it('with ?reload=false, the page keeps running and its overlay says the code changed, naming the module', async () => {
    const { root, watched, close } = await opened('/preview/?reload=false');
    try {
      writeFile(root, 'packages/app/other/pic.svg', square('blue'));
      await watched.page.waitForFunction((label) => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes(label), OTHER, { timeout: 30_000 });
      expect(await overlayTextOf(watched)).to.include('Code changed').and.include('reloading on code changes is off');
      expect(watched.navigations()).to.equal(1);
      expect(await shown(watched)).to.deep.equal(ALL_RED);
    } finally {
      await close();
    }
  });
});
