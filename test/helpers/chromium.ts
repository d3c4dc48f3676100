// Headless Chromium for the browser tests, and what a test watches on a page: its errors,
// its navigations, the requests and WebSockets it opens, the messages it hears on /events.
import { chromium, type Browser, type Page } from 'playwright-core';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-quic',
  '--no-first-run',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ARGS, timeout: 60_000 });
}

/**
 * One Chromium for the suite this is called in (its `before` and `after`): the browser, once
 * launched. Closed even when a test failed, so no browser outlives its suite.
 */
export function chromiumForSuite(): () => Browser {
  let browser: Browser | undefined;
  before(async function () {
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error("the suite's Chromium is not launched: chromiumForSuite() belongs in a describe, called when it is defined");
    return browser;
  };
}

/** What happened on a page since it was opened. */
export interface Watched {
  page: Page;
  /** Uncaught exceptions and console errors, for failure messages. */
  errors: string[];
  /** Answers with an error status, as `status url`. */
  failed: string[];
  /** Navigations of the main frame (the first load counts one). */
  navigations(): number;
  /** URLs of every request and WebSocket the page opened. */
  requests: string[];
  sockets: string[];
  /** Messages the page received on `/events`, parsed. */
  messages: { type: string; module: string; href?: string }[];
  /** Connections to `/events` whose handshake succeeded, and how many of them the current document has open now. */
  events: { opened: number; open: number };
}

export async function openPage(browser: Browser): Promise<Watched> {
  const page = await browser.newPage();
  // tsx compiles these tests with esbuild's keepNames, which wraps the functions declared
  // inside a page.evaluate callback in `__name(fn, "name")`: give the page that helper.
  await page.addInitScript('globalThis.__name = (fn) => fn;');
  let navigations = 0;
  const watched: Watched = { page, errors: [], failed: [], navigations: () => navigations, requests: [], sockets: [], messages: [], events: { opened: 0, open: 0 } };
  page.on('pageerror', (error) => watched.errors.push(error.message));
  page.on('console', (message) => {
    // A failed load is in `failed`, with its address.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) watched.errors.push(message.text());
  });
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) navigations += 1;
  });
  page.on('request', (request) => watched.requests.push(request.url()));
  page.on('response', (response) => {
    if (response.status() >= 400) watched.failed.push(`${response.status()} ${response.url()}`);
  });
  page.on('websocket', (socket) => {
    watched.sockets.push(socket.url());
    if (new URL(socket.url()).pathname !== '/events') return;
    socket.on('framereceived', ({ payload }) => watched.messages.push(JSON.parse(String(payload))));
  });
  // Playwright tells when a page creates a WebSocket, not when its handshake succeeds:
  // Chromium's own protocol does, so a test can wait for the runtime to be listening.
  const cdp = await page.context().newCDPSession(page);
  const created = new Set<string>();
  const connected = new Set<string>();
  cdp.on('Network.webSocketCreated', ({ requestId, url }) => {
    if (new URL(url).pathname === '/events') created.add(requestId);
  });
  cdp.on('Network.webSocketHandshakeResponseReceived', ({ requestId, response }) => {
    if (!created.has(requestId) || response.status !== 101) return;
    connected.add(requestId);
    watched.events.opened += 1;
    watched.events.open += 1;
  });
  cdp.on('Network.webSocketClosed', ({ requestId }) => {
    created.delete(requestId);
    if (connected.delete(requestId)) watched.events.open -= 1;
  });
  // A document left (a reload, `goto`) takes its sockets with it, and Chromium tells no
  // `webSocketClosed` for them: counted open still, `eventsOpen` after a reload let a test edit
  // before the new document was listening, which then missed the push (one reload too few, or
  // none). The same session reports the new document before any socket of it, so its sockets
  // count from zero. A same-document navigation (`history.replaceState`) keeps them.
  cdp.on('Page.frameNavigated', ({ frame }) => {
    if (frame.parentId) return;
    created.clear();
    connected.clear();
    watched.events.open = 0;
  });
  await cdp.send('Network.enable');
  await cdp.send('Page.enable');
  return watched;
}

/** Chromium with a page on one of the service's addresses (its preview unless named), loaded. */
export async function openPreview(serviceUrl: string, address = '/preview/'): Promise<{ browser: Browser; watched: Watched }> {
  const browser = await launchChromium();
  const watched = await openPage(browser);
  await watched.page.goto(new URL(address, serviceUrl).href, { waitUntil: 'load' });
  return { browser, watched };
}

/** Waits until `test` holds, polling; the failure says what was awaited. */
export async function until(test: () => boolean, what: string, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The push messages the page heard since the `from`th, without the greeting each connection of
 * `/events` opens with (`hello`, which names the service's run): a page that reloads connects
 * again and is greeted again, whenever its new connection opens (README "Preview and stylesheet
 * push"). A test that compares or counts what the service pushed compares these.
 */
export const pushedSince = (watched: Watched, from = 0): Watched['messages'] => watched.messages.slice(from).filter((message) => message.type !== 'hello');

/** Waits until the page's runtime has an open connection to `/events`. */
export const eventsOpen = (watched: Watched, timeout = 10_000): Promise<void> => until(() => watched.events.open > 0, 'the page to connect to /events', timeout);

/** The computed colour of the first element matching `selector`. */
export const colourOf = (page: Page, selector: string): Promise<string> =>
  page.evaluate((s) => {
    const element = document.querySelector(s);
    return element ? getComputedStyle(element).color : `(no ${s})`;
  }, selector);

/** Waits for the computed colour of `selector` to become `colour`; the failure names what the page shows instead. */
export async function waitForColour(watched: Watched, selector: string, colour: string, timeout = 10_000): Promise<void> {
  try {
    await watched.page.waitForFunction(
      ([s, c]) => {
        const element = document.querySelector(s!);
        return !!element && getComputedStyle(element).color === c;
      },
      [selector, colour],
      { timeout, polling: 50 },
    );
  } catch {
    const links = await watched.page.evaluate(() => [...document.querySelectorAll('link[rel=stylesheet]')].map((link) => (link as HTMLLinkElement).href)).catch(() => []);
    throw new Error(
      `expected ${selector} to turn ${colour}; it is ${await colourOf(watched.page, selector).catch(() => '?')}; stylesheets: ${links.join(', ') || 'none'}; page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}`,
    );
  }
}

/** `data-ok` of the page's body, what the test workspaces' modules write when they ran; null before (or mid-navigation). */
export const shownOk = (watched: Watched): Promise<string | null> => watched.page.evaluate(() => document.body?.dataset.ok ?? null).catch(() => null);

/** The text of the preview's overlay; null when none is shown (or mid-navigation). */
export const overlayTextOf = (watched: Watched): Promise<string | null> =>
  watched.page.evaluate(() => document.querySelector('core-overlay')?.shadowRoot?.textContent ?? null).catch(() => null);

/**
 * Answers every request of `page` to `origin` as a squatter's package published under the
 * workspace's name would (`export const a = 'FOREIGN'`), recording each URL in `requests`: a page
 * that never asks shows the service kept its imports off that CDN.
 */
export async function routeSquatterCdn(page: Page, origin: string, requests: string[]): Promise<void> {
  await page.route(`${origin}/**`, (route) => {
    requests.push(route.request().url());
    return route.fulfill({ status: 200, contentType: 'text/javascript', headers: { 'access-control-allow-origin': '*' }, body: "export const a = 'FOREIGN';" });
  });
}
