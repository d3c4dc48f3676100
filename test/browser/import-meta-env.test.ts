// A module reading Vite's `import.meta.env` runs in Chromium and shows the values of its variant
// (README "Bundling real code"): the preview's development output says DEV, a production page
// the production output's. CORE_TEST_SHOTS=<dir> keeps a screenshot of each, to look at.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const PRODUCTION = 'target=browser&format=esm&env=production&min=true&sourcemap=none&types=false&css=false';
const SHOWS_ENV = [
  'const shown = document.createElement("p");',
  'shown.id = "env";',
  'shown.textContent = `DEV=${import.meta.env.DEV} PROD=${import.meta.env.PROD} MODE=${import.meta.env.MODE} SSR=${import.meta.env.SSR} BASE_URL=${import.meta.env.BASE_URL}`;',
  'if (import.meta.env.DEV) shown.textContent += " (a development branch)";',
  'document.body.append(shown);',
  '',
].join('\n');

describe("Vite's import.meta.env in Chromium", () => {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let watched: Watched;
  let site: http.Server | undefined;

  const shownEnv = async (name: string) => {
    await watched.page.waitForSelector('#env', { timeout: 20_000 }).catch(async () => {
      throw new Error(`the module never ran; page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}`);
    });
    if (process.env.CORE_TEST_SHOTS) await watched.page.screenshot({ path: path.join(process.env.CORE_TEST_SHOTS, `import-meta-env-${name}.png`) });
    return watched.page.locator('#env').textContent();
  };

  before(async () => {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      'packages/app/package.json': json({ name: '@v/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'packages/app/main/index.ts': SHOWS_ENV,
    });
    service = await serve(root);
    browser = await launchChromium();
  });
  beforeEach(async () => {
    watched = await openPage(browser);
  });
  afterEach(async () => watched?.page.close());
  after(async () => {
    site?.closeAllConnections();
    if (site) await new Promise((resolve) => site!.close(resolve));
    await browser?.close();
    await service?.close();
  });

  it('shows the development values on the preview', async () => {
    await watched.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
    expect(await shownEnv('development')).to.equal('DEV=true PROD=false MODE=development SSR=false BASE_URL=/ (a development branch)');
    expect(watched.errors).to.deep.equal([]);
  });

  it('shows the production values on a page of the production output', async () => {
    const module = new URL(`/m/@v/app@1.0.0/modules/main?${PRODUCTION}`, service.url).href;
    const html = `<!doctype html><html><head><script type="module" src="${module.replace(/&/g, '&amp;')}"></script></head><body></body></html>`;
    // Another port is another origin, as a site loading the production output is.
    site = http.createServer((request, response) => void response.writeHead(request.url === '/' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(request.url === '/' ? html : ''));
    await new Promise<void>((resolve) => site!.listen(0, '127.0.0.1', resolve));
    const { port } = site.address() as AddressInfo;
    await watched.page.goto(`http://127.0.0.1:${port}/`, { waitUntil: 'load' });
    expect(await shownEnv('production')).to.equal('DEV=false PROD=true MODE=production SSR=false BASE_URL=/');
    expect(watched.errors).to.deep.equal([]);
  });
});
