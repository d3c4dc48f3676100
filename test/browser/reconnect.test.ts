// The runtime reconnects to /events after the service restarts (README "Preview and stylesheet push"): the page
// that stayed open picks up stylesheets saved after the restart, without navigating, and
// shows what is broken now rather than what was broken before the restart.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { colourOf, eventsOpen, pushedSince, until, waitForColour, type Watched, openPreview } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace, writeFile } from '../helpers/workspace.js';

const STOREFRONT = '@demo/shop@0.4.0/storefront';
const STYLES_FILE = 'packages/shop/storefront/storefront.css';
const stylesheet = (colour: string) => `demo-storefront {\n  display: block;\n  color: ${colour};\n}\n`;
const broken = `@import "./missing-theme.css";\n${stylesheet('rgb(200, 0, 0)')}`;

describe('the runtime across restarts of the service', () => {
  let browser: Browser;
  let root: string;
  let service: Awaited<ReturnType<typeof serve>>;
  let watched: Watched;
  let navigations: number;

  /** Stops the service, does `meanwhile` while none runs, and starts a new one on the same port. */
  async function restart(meanwhile = () => {}): Promise<void> {
    const { port, url } = service;
    await service.close();
    meanwhile();
    service = await serve(root, { port });
    expect(service.url).to.equal(url);
  }

  const overlayText = () => watched.page.evaluate(() => document.querySelector('core-overlay')?.shadowRoot?.textContent ?? null);

  before(async () => {
    root = exampleWorkspace();
    service = await serve(root);
    ({ browser, watched } = await openPreview(service.url));
    await waitForColour(watched, 'demo-storefront', 'rgb(34, 40, 49)', 30_000);
    await eventsOpen(watched);
    await watched.page.evaluate(() => void ((window as unknown as { kept: string }).kept = 'window state'));
    navigations = watched.navigations();
  });

  // Whatever a restart brings, the page never navigates and keeps its state.
  afterEach(async () => {
    expect(watched.navigations(), 'the page navigated').to.equal(navigations);
    expect(await watched.page.evaluate(() => (window as unknown as { kept?: string }).kept)).to.equal('window state');
  });

  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('reconnects to the new service on the same port and applies the next stylesheet edit in place', async () => {
    const opened = watched.events.opened;
    await restart();
    await until(() => watched.events.opened > opened && watched.events.open > 0, 'the page to connect to the new service');
    await service.report(); // every module built: the next save is a change the service announces

    writeFile(root, STYLES_FILE, stylesheet('rgb(120, 30, 160)'));
    await waitForColour(watched, 'demo-storefront', 'rgb(120, 30, 160)', 10_000);
    expect(pushedSince(watched).at(-1)).to.include({ type: 'styles', module: STOREFRONT });
  });

  it('drops the overlay of a stylesheet fixed while the service was down, and applies the fix', async () => {
    writeFile(root, STYLES_FILE, broken);
    await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('missing-theme.css'), null, { timeout: 15_000 });

    await restart(() => writeFile(root, STYLES_FILE, stylesheet('rgb(90, 90, 20)')));
    await waitForColour(watched, 'demo-storefront', 'rgb(90, 90, 20)', 15_000);
    await watched.page.waitForFunction(() => document.querySelector('core-overlay') === null, null, { timeout: 10_000 }).catch(async () => {
      throw new Error(`the overlay of the fixed stylesheet stayed after the restart: ${await overlayText()}`);
    });
  });

  it('shows the overlay of a stylesheet broken while the service was down, and keeps the last good style', async () => {
    await restart(() => writeFile(root, STYLES_FILE, broken));
    await watched.page
      .waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('missing-theme.css'), null, { timeout: 15_000 })
      .catch(() => {
        throw new Error('no overlay for the stylesheet broken while the service was down');
      });
    expect(await colourOf(watched.page, 'demo-storefront')).to.equal('rgb(90, 90, 20)');
  });
});
