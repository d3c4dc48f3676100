// The development runtime once it began to reload the page (README "Preview and stylesheet
// push"): the page being left heeds no further message and starts no second reload; what
// changed meanwhile comes with the reload. The page is served through a proxy of the test's
// that plays the service's /events itself and holds the reload's request, so the page being
// left stays observable.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { WebSocketServer, type WebSocket as EventsSocket } from 'ws';
import { launchChromium, openPage, until, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace } from '../helpers/workspace.js';

const STOREFRONT = '@demo/shop@0.4.0/storefront';
const BADGE = '@demo/ui@1.1.0/badge';

/** What the page shows after the runtime handled a message. */
interface Seen {
  handled: number;
  sheets: string[];
  overlay: boolean;
  unloads: number;
}

describe('the development runtime while its page reloads', () => {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let proxy: http.Server;
  let events: EventsSocket | null = null;
  /** Once the page loaded: its reload's request is left unanswered, here. */
  let holding = false;
  const held: http.ServerResponse[] = [];
  let seen: Seen[] = [];
  let watched: Watched;

  before(async () => {
    service = await serve(exampleWorkspace());
    const target = new URL(service.url);
    const sockets = new WebSocketServer({ noServer: true });
    proxy = http.createServer((request, response) => {
      if (request.url === '/preview/' && holding) return void held.push(response);
      const forwarded = http.request({ host: target.hostname, port: target.port, method: request.method, path: request.url, headers: { ...request.headers, host: target.host } }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      request.pipe(forwarded);
    });
    proxy.on('upgrade', (request, socket, head) => sockets.handleUpgrade(request, socket, head, (opened) => void (events = opened)));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    browser = await launchChromium();
  });

  beforeEach(async () => {
    holding = false;
    events = null;
    seen = [];
    watched = await openPage(browser);
    // After each message the runtime handled, the page tells what it shows, on its console:
    // a page whose reload is under way answers no evaluation, and the test waits for no time.
    watched.page.on('console', (message) => {
      if (message.text().startsWith('core-test ')) seen.push(JSON.parse(message.text().slice('core-test '.length)) as Seen);
    });
    await watched.page.addInitScript(() => {
      let handled = 0;
      let unloads = 0;
      addEventListener('beforeunload', () => void (unloads += 1));
      const tell = () =>
        console.log(
          `core-test ${JSON.stringify({
            handled,
            sheets: [...document.querySelectorAll<HTMLLinkElement>('link[data-core-styles]')].map((link) => link.href),
            overlay: document.querySelector('core-overlay') !== null,
            unloads,
          })}`,
        );
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
              tell();
            }
          },
          options,
        );
      };
    });
    await watched.page.goto(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}/preview/`, { waitUntil: 'load' });
    await until(() => events !== null, 'the runtime to open /events');
    holding = true;
  });

  afterEach(async () => {
    await watched.page.close();
    for (const response of held.splice(0)) response.destroy();
  });

  after(async () => {
    await browser?.close();
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve));
    await service?.close();
  });

  const send = async (message: object): Promise<Seen> => {
    const count = seen.length;
    events!.send(JSON.stringify(message));
    await until(() => seen.length > count, `the page to handle ${JSON.stringify(message)}`);
    return seen[seen.length - 1]!;
  };

  it('heeds no message after a code change began the reload, and reloads once', async () => {
    const first = await send({ type: 'code', module: STOREFRONT });
    expect(first.unloads, 'the code change reloads the page').to.equal(1);
    await until(() => held.length === 1, 'the reload to ask for the page');
    const shown = first.sheets;
    expect(shown.length).to.be.greaterThan(0);
    await send({ type: 'styles', module: BADGE, href: '/m/@demo/ui@1.1.0/styles/badge?v=after-reload-began' });
    await send({ type: 'invalid', module: STOREFRONT, diagnostics: [{ kind: 'ESBUILD_ERROR', message: 'after the reload began', module: STOREFRONT }] });
    const last = await send({ type: 'code', module: STOREFRONT });
    expect(last, 'no sheet swapped into the page being left, no overlay, no second reload').to.deep.equal({ handled: 4, sheets: shown, overlay: false, unloads: 1 });
  });

  it("reloads a page that failed on a module once when that module's code builds again", async () => {
    // The page failed on the storefront's code: its new code both fixes the failure and is a
    // code change, two reasons to reload in one message.
    await watched.page.evaluate((address) => dispatchEvent(new ErrorEvent('error', { filename: new URL(address, location.href).href, message: 'failed on it' })), `/m/${STOREFRONT.replace('/storefront', '')}/modules/storefront`);
    const seenAfter = await send({ type: 'code', module: STOREFRONT });
    expect(seenAfter.unloads).to.equal(1);
  });
});
