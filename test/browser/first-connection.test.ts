// A page whose first connection to /events reaches another run of the service than the one that
// wrote it (README "Preview and stylesheet push"): the service restarted between the page's load
// and that connection, and no closed connection told the page so. The page catches up as one
// that reconnects does: the code it would load now is not what it runs, so it reloads; a sheet
// saved meanwhile is fetched again, in place. The restart is put there by holding the runtime's
// request (the runtime opens the connection) until the new service is listening.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, Route } from 'playwright-core';
import { eventsOpen, launchChromium, openPage, until, waitForColour, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace, writeFile } from '../helpers/workspace.js';

const CODE_FILE = 'packages/shop/storefront/index.ts';
const STYLES_FILE = 'packages/shop/storefront/storefront.css';
const stylesheet = (colour: string) => `demo-storefront {\n  display: block;\n  color: ${colour};\n}\n`;

describe("a page's first connection to /events after the service restarted", () => {
  let browser: Browser;
  let root: string;
  let service: Awaited<ReturnType<typeof serve>>;
  let watched: Watched;

  beforeEach(async () => {
    root = exampleWorkspace();
    service = await serve(root);
    browser = await launchChromium();
    watched = await openPage(browser);
  });

  afterEach(async () => {
    await browser?.close();
    await service?.close();
  });

  const instanceOfPage = () => watched.page.evaluate(() => (JSON.parse(document.getElementById('core-page')!.textContent!) as { instance?: string }).instance ?? null);

  /**
   * Loads the preview from the running service, all but its runtime, which is held; restarts the
   * service on the same port with `meanwhile` done while none runs; then lets the runtime load.
   */
  async function loadAcrossRestart(meanwhile: () => void): Promise<{ before: string | null }> {
    return loadWithRuntimeHeld('/preview/', async () => {
      const { port } = service;
      await service.close();
      meanwhile();
      service = await serve(root, { port });
    });
  }

  /** Loads `address` from the running service, all but its runtime (which opens the connection), does `meanwhile`, then lets the runtime load. */
  async function loadWithRuntimeHeld(address: string, meanwhile: () => Promise<void>): Promise<{ before: string | null }> {
    const held: Route[] = [];
    const hold = (route: Route) => void held.push(route);
    await watched.page.route('**/u/runtime.js*', hold);
    await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'commit' });
    await until(() => held.length === 1, 'the page to ask for the runtime');
    // Everything else the first service answers: the sheets and every module of the graph.
    await watched.page.waitForFunction(
      () => {
        const fetched = new Set(performance.getEntriesByType('resource').map((entry) => entry.name));
        const links = [...document.querySelectorAll<HTMLLinkElement>('link[rel="modulepreload"], link[data-core-styles], link[data-core-bundle]')];
        return document.getElementById('core-page') !== null && links.length > 0 && links.every((link) => fetched.has(link.href));
      },
      null,
      { timeout: 30_000, polling: 50 },
    );
    const before = await instanceOfPage();
    await meanwhile();
    await held[0]!.continue();
    await watched.page.unroute('**/u/runtime.js*', hold);
    return { before };
  }

  it('reloads when its code was saved while the service was away, and runs the new code', async () => {
    const { before } = await loadAcrossRestart(() => {
      const code = readText(CODE_FILE);
      writeFile(root, CODE_FILE, code.replace("'Your cart'", "'Your basket'"));
    });
    expect(before, 'the page names the run that wrote it').to.be.a('string');
    await watched.page
      .waitForFunction(() => document.querySelector('demo-storefront h1')?.textContent === 'Your basket', null, { timeout: 30_000, polling: 50 })
      .catch(async () => {
        throw new Error(`the page runs the code it was loaded with (navigations: ${watched.navigations()}, heard: ${JSON.stringify(watched.messages.map((m) => m.type))})`);
      });
    expect(watched.navigations(), 'one reload').to.equal(2);
    // The reloaded page is the new run's, and hears it: nothing more to catch up with.
    await eventsOpen(watched);
    const after = await instanceOfPage();
    expect(after).to.be.a('string').and.not.equal(before);
    await until(() => watched.messages.some((message) => message.type === 'hello' && (message as { instance?: string }).instance === after), 'the new run to say hello');
  });

  it('fetches a sheet saved while the service was away again, in place', async () => {
    await loadAcrossRestart(() => writeFile(root, STYLES_FILE, stylesheet('rgb(120, 30, 160)')));
    await waitForColour(watched, 'demo-storefront', 'rgb(120, 30, 160)', 30_000);
    expect(watched.navigations(), 'a sheet swapped in place: no reload').to.equal(1);
  });

  // The same run, a later state: the save was built and told (`code`, `styles`) to the pages
  // connected then, while this one loaded (its HTML written before the save, its connection
  // opened after the message went out). Seen on a burst of saves: the save after the one whose
  // reload was loading.
  describe('while the page loaded, the same run', () => {
    /** Saves `relative` as `text` and waits until the service serves what it builds into `served` (a path and a marker in its body). */
    async function saveAndWaitServed(relative: string, text: string, served: { path: string; has: string }): Promise<void> {
      writeFile(root, relative, text);
      const answered = async () => {
        const answer = await fetch(new URL(served.path, service.url));
        return answer.ok && (await answer.text()).includes(served.has);
      };
      for (const deadline = Date.now() + 60_000; !(await answered()); ) {
        if (Date.now() > deadline) throw new Error(`gave up waiting for the service to serve ${served.has} at ${served.path}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    const codeSaved = () => saveAndWaitServed(CODE_FILE, readText(CODE_FILE).replace("'Your cart'", "'Your basket'"), { path: '/m/@demo/shop@0.4.0/modules/storefront', has: 'Your basket' });

    for (const address of ['/preview/', '/preview/bundled/']) {
      it(`${address}: reloads into the code saved after its HTML was written, and runs it`, async () => {
        await loadWithRuntimeHeld(address, codeSaved);
        await watched.page
          .waitForFunction(() => document.querySelector('demo-storefront h1')?.textContent === 'Your basket', null, { timeout: 30_000, polling: 50 })
          .catch(async () => {
            throw new Error(`the page runs the code it was loaded with (navigations: ${watched.navigations()}, heard: ${JSON.stringify(watched.messages.map((m) => m.type))})`);
          });
        expect(watched.navigations(), 'one reload').to.equal(2);
      });
    }

    it('fetches a sheet saved after its HTML was written again, in place', async () => {
      await loadWithRuntimeHeld('/preview/', () => saveAndWaitServed(STYLES_FILE, stylesheet('rgb(20, 130, 60)'), { path: '/m/@demo/shop@0.4.0/styles/storefront', has: 'rgb(20, 130, 60)' }));
      await waitForColour(watched, 'demo-storefront', 'rgb(20, 130, 60)', 30_000);
      expect(watched.navigations(), 'a sheet swapped in place: no reload').to.equal(1);
    });
  });

  function readText(relative: string): string {
    return readFileSync(join(root, relative), 'utf8');
  }
});
