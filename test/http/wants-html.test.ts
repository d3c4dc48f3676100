// Which requests get a page rather than JSON: the one rule of the dashboard and the preview's pages.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'chai';
import Koa from 'koa';
import { wantsHtml } from '../../src/http/wants-html.js';

const app = new Koa();
// A context of Koa's own over a request that has only headers: `accepts` reads no more.
const contextWith = (accept: string | undefined) => app.createContext({ headers: accept === undefined ? {} : { accept } } as IncomingMessage, {} as ServerResponse);

describe('wantsHtml', function () {
  it("is true for a browser's navigation, whose Accept names text/html", function () {
    for (const accept of [
      'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8', // Chromium
      'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', // Firefox
      'TEXT/HTML',
      'application/json, text/html;q=0.5',
    ]) {
      expect(wantsHtml(contextWith(accept)), accept).to.equal(true);
    }
  });

  it('is false for */* alone, text/*, no Accept, text/html refused with q=0, and names that only contain text/html', function () {
    for (const accept of [undefined, '', '*/*', 'text/*', 'application/json', 'text/event-stream', 'text/html;q=0', 'text/html-fragment', 'application/json;note="text/html"']) {
      expect(wantsHtml(contextWith(accept)), String(accept)).to.equal(false);
    }
  });
});
