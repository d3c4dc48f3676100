// A workspace served with the local CDN, its pages opened in Chromium: the set-up of the browser
// tests of the bundled preview (README "The bundled preview"), whose pages write what they found
// in `<p id="done">`.
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from './chromium.js';
import { serve } from './service.js';
import { tempWorkspace } from './workspace.js';

export const json = (value: unknown) => JSON.stringify(value, null, 2);

/** A module folder's `module.json`, its entry `index.ts`. */
export const moduleAt = (folder: string) => ({ [`${folder}/module.json`]: json({ entry: 'index.ts' }) });

/** What a page showed once it ran. */
export interface ShownPage {
  /** The text of `#done`, null when the page wrote none within 30 s. */
  text: string | null;
  /** What the page threw or logged as an error, for failure messages. */
  errors: string[];
  /** The page's import map. */
  imports: Record<string, string>;
  /** The addresses its `modulepreload` links name. */
  preloads: (string | null)[];
}

/**
 * The workspace of `files`, served with the local CDN, and a Chromium, for the suite this is
 * called in (its `before` and `after`): both closed even when a test failed. `shown` opens an
 * address of the service in a page of its own and closes it once read.
 */
export function bundledPageSuite(files: Record<string, string>): { service(): Awaited<ReturnType<typeof serve>>; shown(address: string): Promise<ShownPage> } {
  let service: Awaited<ReturnType<typeof serve>> | undefined;
  let browser: Browser | undefined;
  before(async function () {
    service = await serve(tempWorkspace(files), { cdnOrigin: 'local' });
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });
  const started = () => {
    if (!service || !browser) throw new Error("the suite's service is not started: bundledPageSuite() belongs in a describe, called when it is defined");
    return { service, browser };
  };
  return {
    service: () => started().service,
    async shown(address) {
      const { service, browser } = started();
      const watched = await openPage(browser);
      try {
        await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
        await watched.page.waitForSelector('#done', { state: 'attached', timeout: 30_000 }).catch(() => undefined);
        const text = await watched.page.textContent('#done').catch(() => null);
        const map = await watched.page.evaluate(() => JSON.parse(document.querySelector('script[type="importmap"]')?.textContent ?? '{}') as { imports?: Record<string, string> });
        const preloads = await watched.page.evaluate(() => [...document.querySelectorAll('link[rel="modulepreload"]')].map((link) => link.getAttribute('href')));
        return { text, errors: watched.errors, imports: map.imports ?? {}, preloads };
      } finally {
        await watched.page.close();
      }
    },
  };
}
