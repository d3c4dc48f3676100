// The browser tests' own watch on `/events` (test/helpers/chromium.ts): `eventsOpen` after a
// navigation waits for the new document's runtime, never for a socket of the document left.
// Counting that one open let a test edit before the reloaded page listened, and the page missed
// the push: a reload too few in moved-code and edit-loop under load (README "Tests").
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { eventsOpen, launchChromium, openPage, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace } from '../helpers/workspace.js';

describe('the watch of a page on /events', () => {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let watched: Watched;

  before(async () => {
    service = await serve(exampleWorkspace());
    browser = await launchChromium();
    watched = await openPage(browser);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('counts open only the connections of the document the page shows now', async () => {
    await watched.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
    await eventsOpen(watched);
    expect(watched.events).to.deep.equal({ opened: 1, open: 1 });

    // A reloaded document whose runtime never runs: nothing of it listens on /events.
    await watched.page.route('**/u/runtime.js*', (route) => route.abort());
    await watched.page.reload({ waitUntil: 'load' });
    expect(watched.navigations()).to.equal(2);
    expect(watched.events).to.deep.equal({ opened: 1, open: 0 });

    await watched.page.unroute('**/u/runtime.js*');
    await watched.page.reload({ waitUntil: 'load' });
    await eventsOpen(watched);
    expect(watched.events).to.deep.equal({ opened: 2, open: 1 });
  });

  it('keeps the connection counted across a navigation within the document', async () => {
    await watched.page.evaluate(() => history.replaceState(null, '', '/preview/?moved=1'));
    expect(watched.page.url()).to.match(/\?moved=1$/);
    expect(watched.events).to.deep.equal({ opened: 2, open: 1 });
  });
});
