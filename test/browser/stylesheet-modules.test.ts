// Stylesheets published through `exports` in Chromium (README "Stylesheet modules"): a workspace
// module imports a CSS-only package's sheet and an installed package's sheet by bare specifier;
// both style the page on /preview/ and /preview/bundled/ (as do an installed component's own
// sheet and a CSS module script adopted by a shadow root), the workspace sheet is pushed when saved, and the local CDN answers the installed
// one as an empty module and, at ?styles, its sheet.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { colourOf, eventsOpen, launchChromium, openPage, waitForColour, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace, writeFile } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const LIGHT = 'packages/tokens/themes/light.css';

function workspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app', 'packages/tokens'], preview: '@kit/app/main' }),
    'packages/app/package.json': json({ name: '@kit/app', version: '1.0.0', exports: { './main': './main/index.ts', './card': './card/index.ts' }, dependencies: { '@kit/tokens': '^2.0.0', fakecss: '3.0.0', fakewidget: '1.0.0' } }),
    'packages/app/main/index.ts': `import '@kit/tokens/themes/light.css';
import 'fakecss/theme.css';
import '@kit/app/card';
import { widget } from 'fakewidget';
document.body.insertAdjacentHTML('beforeend', '<p class="tokens">tokens</p><p class="installed">installed</p><p class="imported">imported</p>' + widget());
`,
    // A CSS module script: the sheet, declared under assets, adopted by a shadow root.
    'packages/app/card/module.json': json({ assets: ['card.css'] }),
    'packages/app/card/card.css': '.card { color: rgb(11, 12, 13); }\n',
    'packages/app/card/index.ts': `import sheet from './card.css' with { type: 'css' };
const host = document.createElement('div');
host.className = 'card-host';
document.body.append(host);
const shadow = host.attachShadow({ mode: 'open' });
shadow.adoptedStyleSheets = [sheet];
shadow.innerHTML = '<p class="card">card</p>';
`,
    'packages/tokens/package.json': json({ name: '@kit/tokens', version: '2.0.0', exports: { './themes/*.css': './themes/*.css', './base.css': { style: './base.css' } } }),
    [LIGHT]: '.tokens { color: rgb(1, 2, 3); }\n',
    'packages/tokens/themes/dark.css': '.tokens { color: rgb(200, 200, 200); }\n',
    'packages/tokens/base.css': '.unused { color: red; }\n',
    'node_modules/fakecss/package.json': json({ name: 'fakecss', version: '3.0.0', exports: { './theme.css': './dist/theme.css' } }),
    'node_modules/fakecss/dist/theme.css': '@import "./base.css";\n.installed { color: rgb(4, 5, 6); }\n',
    'node_modules/fakecss/dist/base.css': '.imported { color: rgb(7, 8, 9); }\n',
    // An installed component whose code imports its own sheet, with a font beside it.
    'node_modules/fakewidget/package.json': json({ name: 'fakewidget', version: '1.0.0', type: 'module', exports: { '.': './index.js' } }),
    'node_modules/fakewidget/index.js': "import './widget.css';\nexport const widget = () => '<p class=\"widget\">widget</p>';\n",
    'node_modules/fakewidget/widget.css': "@font-face { font-family: w; src: url(./w.woff2); }\n.widget { color: rgb(21, 22, 23); }\n",
    'node_modules/fakewidget/w.woff2': 'not really a font',
  });
}

describe('stylesheet modules in Chromium', () => {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async () => {
    root = workspace();
    service = await serve(root, { cdnOrigin: 'local' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const open = async (address: string): Promise<Watched> => {
    const watched = await openPage(browser);
    await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
    await watched.page.waitForSelector('p.imported');
    return watched;
  };
  const colours = async (watched: Watched) => ({
    tokens: await colourOf(watched.page, '.tokens'),
    installed: await colourOf(watched.page, '.installed'),
    imported: await colourOf(watched.page, '.imported'),
    widget: await colourOf(watched.page, '.widget'),
    card: await watched.page.evaluate(() => {
      const card = document.querySelector('.card-host')?.shadowRoot?.querySelector('.card');
      return card ? getComputedStyle(card).color : '(no card)';
    }),
  });
  const STYLED = { tokens: 'rgb(1, 2, 3)', installed: 'rgb(4, 5, 6)', imported: 'rgb(7, 8, 9)', widget: 'rgb(21, 22, 23)', card: 'rgb(11, 12, 13)' };

  it('publishes each stylesheet of `exports` as a valid module of a CSS-only package, and the importer is valid', async () => {
    const state = (await service.get('/state')).json<{ warnings?: { kind: string }[]; modules: { specifier: string; status: string; diagnostics: unknown[] }[] }>();
    expect(state.modules.map((m) => [m.specifier, m.status])).to.deep.equal([
      ['@kit/app/card', 'valid'],
      ['@kit/app/main', 'valid'],
      ['@kit/tokens/base.css', 'valid'],
      ['@kit/tokens/themes/dark.css', 'valid'],
      ['@kit/tokens/themes/light.css', 'valid'],
    ]);
    expect(state.warnings ?? []).to.deep.equal([]);
    const code = await service.get('/m/@kit/tokens@2.0.0/modules/themes/light.css');
    expect(code.headers['content-type']).to.equal('text/javascript; charset=utf-8');
    expect(code.text).to.equal('');
    const styles = await service.get('/m/@kit/tokens@2.0.0/styles/themes/light.css?sourcemap=none');
    expect(styles.text).to.include('color: rgb(1, 2, 3)');
  });

  it('styles the page on /preview/ from the linked sheets and a CSS module script, and pushes the workspace sheet when it is saved', async () => {
    const watched = await open('/preview/');
    try {
      await waitForColour(watched, '.installed', STYLED.installed);
      expect(await colours(watched)).to.deep.equal(STYLED);
      const links = await watched.page.evaluate(() => [...document.querySelectorAll<HTMLLinkElement>('link[rel=stylesheet]')].map((link) => link.dataset.coreStyles ?? link.dataset.coreCdnStyles));
      expect(links).to.have.members(['@kit/tokens@2.0.0/themes/light.css', 'fakecss/theme.css', 'fakewidget']);
      await eventsOpen(watched);
      writeFile(root, LIGHT, '.tokens { color: rgb(10, 20, 30); }\n');
      await waitForColour(watched, '.tokens', 'rgb(10, 20, 30)');
      expect(watched.navigations()).to.equal(1);
      expect(watched.errors).to.deep.equal([]);
      expect(watched.failed).to.deep.equal([]);
    } finally {
      writeFile(root, LIGHT, '.tokens { color: rgb(1, 2, 3); }\n');
      await watched.page.close();
    }
  });

  it('styles the page on /preview/bundled/ the same way', async () => {
    await service.get('/state'); // the restored sheet is built
    const watched = await open('/preview/bundled/');
    try {
      await waitForColour(watched, '.tokens', STYLED.tokens);
      await waitForColour(watched, '.installed', STYLED.installed);
      expect(await colours(watched)).to.deep.equal(STYLED);
      expect(watched.errors).to.deep.equal([]);
      expect(watched.failed).to.deep.equal([]);
    } finally {
      await watched.page.close();
    }
  });

  it('answers an installed stylesheet on the local CDN as an empty module, and its sheet at ?styles', async () => {
    const { imports, stylesheets } = (await service.get('/preview/entry.json')).json<{ imports: Record<string, string>; stylesheets: unknown[] }>();
    // Each named by the hash of its bytes, the ETag of its plain address (README "The local CDN").
    const etag = async (address: string) => (await service.get(address)).headers.etag!.slice(1, -1);
    expect(imports['fakecss/theme.css']).to.equal(`/cdn/fakecss@3.0.0/theme.css?v=${await etag('/cdn/fakecss@3.0.0/theme.css')}`);
    expect(stylesheets).to.have.deep.members([
      { specifier: 'fakecss/theme.css', href: `/cdn/fakecss@3.0.0/theme.css?styles&v=${await etag('/cdn/fakecss@3.0.0/theme.css?styles')}` },
      { specifier: 'fakewidget', href: `/cdn/fakewidget@1.0.0?styles&v=${await etag('/cdn/fakewidget@1.0.0?styles')}` },
    ]);
    const module = await service.get('/cdn/fakecss@3.0.0/theme.css');
    expect(module.headers['content-type']).to.equal('text/javascript; charset=utf-8');
    expect(module.text).to.equal('');
    const sheet = await service.get('/cdn/fakecss@3.0.0/theme.css?styles');
    expect(sheet.headers['content-type']).to.equal('text/css; charset=utf-8');
    expect(sheet.text).to.match(/\.imported\s*\{/); // its @import joined in
    const widget = await service.get('/cdn/fakewidget@1.0.0?styles');
    expect(widget.text).to.include('.widget{color:#151617}').and.include('url("data:font/woff2'); // its font inlined
  });

  it('links the production sheet of a workspace stylesheet module left out of development, from the local CDN', async () => {
    writeFile(root, '.core/selection.json', json({ packages: ['@kit/app'] }));
    try {
      const { imports, stylesheets } = (await service.get('/preview/entry.json')).json<{ imports: Record<string, string>; stylesheets: unknown[] }>();
      expect(imports['@kit/tokens/themes/light.css']).to.equal('/cdn/@kit/tokens@2.0.0/themes/light.css');
      expect(stylesheets).to.deep.include({ specifier: '@kit/tokens/themes/light.css', href: '/cdn/@kit/tokens@2.0.0/themes/light.css?styles' });
      const redirect = await service.get('/cdn/@kit/tokens@2.0.0/themes/light.css?styles');
      expect(redirect.headers.location).to.equal('/m/@kit/tokens@2.0.0/styles/themes/light.css?env=production');
      const sheet = await service.get(redirect.headers.location!);
      expect(sheet.headers['content-type']).to.equal('text/css; charset=utf-8');
      expect(sheet.text).to.include('color:#010203');
      const watched = await open('/preview/');
      try {
        await waitForColour(watched, '.tokens', STYLED.tokens);
        expect(await colours(watched)).to.deep.equal(STYLED);
        expect(watched.errors).to.deep.equal([]);
        expect(watched.failed).to.deep.equal([]);
      } finally {
        await watched.page.close();
      }
    } finally {
      writeFile(root, '.core/selection.json', json({ packages: ['@kit/app', '@kit/tokens'] }));
    }
  });
});
