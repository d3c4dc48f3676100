// The development runtime once it began to reload the page (README "Preview and stylesheet
// push"): the page being left heeds no further message and starts no second reload; what
// changed meanwhile comes with the reload. The page is served through a proxy of the test's
// that plays the service's /events itself and holds the reload's request, so the page being
// left stays observable (and, when asked, the runtime's HEAD of the bundled preview's sheet).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { WebSocketServer, type WebSocket as EventsSocket } from 'ws';
import { launchChromium, openPage, until, type Watched } from '../helpers/chromium.js';
import { edit } from '../helpers/edit.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace } from '../helpers/workspace.js';

const STOREFRONT = '@demo/shop@0.4.0/storefront';
const BADGE = '@demo/ui@1.1.0/badge';

/** What the page shows after the runtime handled a message, or after a fetch of its was answered. */
interface Seen {
  after: 'message' | 'fetch';
  handled: number;
  sheets: string[];
  incoming: number;
  overlay: boolean;
  unloads: number;
}

describe('the development runtime while its page reloads', () => {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;
  let proxy: http.Server;
  let events: EventsSocket | null = null;
  /** Once the page loaded: its reload's request is left unanswered, here. */
  let holdingPage: string | null = null;
  const heldPages: http.ServerResponse[] = [];
  /** HEAD requests, answered when the test lets them through. */
  let holdingHeads = false;
  const heldHeads: (() => void)[] = [];
  let seen: Seen[] = [];
  let watched: Watched;

  before(async () => {
    root = exampleWorkspace();
    service = await serve(root);
    const target = new URL(service.url);
    const sockets = new WebSocketServer({ noServer: true });
    const forward = (request: http.IncomingMessage, response: http.ServerResponse) => {
      const forwarded = http.request({ host: target.hostname, port: target.port, method: request.method, path: request.url, headers: { ...request.headers, host: target.host } }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      request.pipe(forwarded);
    };
    proxy = http.createServer((request, response) => {
      if (request.method === 'GET' && request.url === holdingPage) return void heldPages.push(response);
      if (request.method === 'HEAD' && holdingHeads) return void heldHeads.push(() => forward(request, response));
      forward(request, response);
    });
    proxy.on('upgrade', (request, socket, head) => sockets.handleUpgrade(request, socket, head, (opened) => void (events = opened)));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    browser = await launchChromium();
  });

  /** Opens `address` through the proxy; from then on its reload is held. */
  const open = async (address: string) => {
    watched = await openPage(browser);
    // The page tells what it shows on its console: a page whose reload is under way answers no
    // evaluation, and the test waits for no time.
    watched.page.on('console', (message) => {
      if (message.text().startsWith('core-test ')) seen.push(JSON.parse(message.text().slice('core-test '.length)) as Seen);
    });
    await watched.page.addInitScript(() => {
      let handled = 0;
      let unloads = 0;
      addEventListener('beforeunload', () => void (unloads += 1));
      const tell = (after: string) =>
        console.log(
          `core-test ${JSON.stringify({
            after,
            handled,
            sheets: [...document.querySelectorAll<HTMLLinkElement>('link[data-core-styles], link[data-core-bundle]')].map((link) => link.href),
            incoming: document.querySelectorAll('link[data-core-incoming]').length,
            overlay: document.querySelector('core-overlay') !== null,
            unloads,
          })}`,
        );
      // After each of the runtime's message listeners ran.
      const add = EventTarget.prototype.addEventListener;
      EventTarget.prototype.addEventListener = function (this: EventTarget, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions) {
        if (type !== 'message' || typeof listener !== 'function' || !(this instanceof globalThis.WebSocket)) return add.call(this, type, listener, options);
        const socket = this;
        return add.call(
          this,
          type,
          (event: Event) => {
            try {
              listener.call(socket, event);
            } finally {
              handled += 1;
              tell('message');
            }
          },
          options,
        );
      };
      // After what the runtime does once a fetch is answered: a task later than its continuation.
      const fetched = globalThis.fetch;
      globalThis.fetch = (...args: Parameters<typeof fetch>) => {
        const answer = fetched(...args);
        answer.then(
          () => setTimeout(() => tell('fetch'), 0),
          () => setTimeout(() => tell('fetch'), 0),
        );
        return answer;
      };
    });
    await watched.page.goto(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}${address}`, { waitUntil: 'load' });
    await until(() => events !== null, 'the runtime to open /events');
    holdingPage = address;
  };

  afterEach(async () => {
    holdingPage = null;
    holdingHeads = false;
    events = null;
    seen = [];
    await watched?.page.close();
    for (const response of heldPages.splice(0)) response.destroy();
    heldHeads.splice(0);
  });

  after(async () => {
    await browser?.close();
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve));
    await service?.close();
  });

  const tells = (after: Seen['after']) => seen.filter((one) => one.after === after);
  const send = async (message: object): Promise<Seen> => {
    const count = tells('message').length;
    events!.send(JSON.stringify(message));
    await until(() => tells('message').length > count, `the page to handle ${JSON.stringify(message)}`);
    return tells('message').at(-1)!;
  };

  it('heeds no message after a code change began the reload, and reloads once', async () => {
    await open('/preview/');
    const first = await send({ type: 'code', module: STOREFRONT });
    expect(first.unloads, 'the code change reloads the page').to.equal(1);
    await until(() => heldPages.length === 1, 'the reload to ask for the page');
    const shown = first.sheets;
    expect(shown.length).to.be.greaterThan(0);
    await send({ type: 'styles', module: BADGE, href: '/m/@demo/ui@1.1.0/styles/badge?v=after-reload-began' });
    await send({ type: 'invalid', module: STOREFRONT, diagnostics: [{ kind: 'ESBUILD_ERROR', message: 'after the reload began', module: STOREFRONT }] });
    const last = await send({ type: 'code', module: STOREFRONT });
    expect(last, 'no sheet swapped into the page being left, no overlay, no second reload').to.deep.equal({ after: 'message', handled: 4, sheets: shown, incoming: 0, overlay: false, unloads: 1 });
  });

  it("reloads a page that failed on a module once when that module's code builds again", async () => {
    await open('/preview/');
    // The page failed on the storefront's code: its new code both fixes the failure and is a
    // code change, two reasons to reload in one message.
    await watched.page.evaluate((address) => dispatchEvent(new ErrorEvent('error', { filename: new URL(address, location.href).href, message: 'failed on it' })), '/m/@demo/shop@0.4.0/modules/storefront');
    const seenAfter = await send({ type: 'code', module: STOREFRONT });
    expect(seenAfter.unloads).to.equal(1);
  });

  it("swaps no joined sheet into the bundled preview being left, when the sheet's address is answered after the reload began", async () => {
    await open('/preview/bundled/');
    holdingHeads = true;
    // A module built again: the runtime asks the joined sheet's current address (a HEAD, held).
    const valid = await send({ type: 'valid', module: STOREFRONT });
    await until(() => heldHeads.length === 1, "the runtime to ask the joined sheet's address");
    await send({ type: 'code', module: STOREFRONT });
    await until(() => heldPages.length === 1, 'the reload to ask for the page');
    // The runtime asks one at a time: the code change's look waits for the held one.
    expect(heldHeads).to.have.length(1);
    // The joined sheet changed meanwhile: its address, answered now, names other bytes.
    edit(root, 'packages/shop/storefront/storefront.css', (text) => `${text}\n.changed-meanwhile { color: rgb(1, 2, 3); }\n`);
    const fetchedBefore = tells('fetch').length;
    const released = heldHeads.splice(0);
    for (const release of released) release();
    await until(() => tells('fetch').length >= fetchedBefore + released.length, "the sheet's address to be answered");
    expect(valid.sheets.some((sheet) => new URL(sheet).pathname === '/preview/bundled/styles.css')).to.equal(true);
    expect(tells('fetch').at(-1), 'the sheet the page being left was loaded with').to.deep.include({ sheets: valid.sheets, incoming: 0, unloads: 1 });
  });
});
