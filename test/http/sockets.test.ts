// Which pages may open the push channel.
import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import { ERROR_CODES } from '../../src/codes.js';
import { requestGuards } from '../../src/http/guards/request-guards.js';
import { createSocketRoutes, isOriginAllowed, verifyUpgrade } from '../../src/http/sockets.js';

describe('isOriginAllowed', () => {
  it('allows a client without Origin: a tool, not a page', () => {
    expect(isOriginAllowed(undefined, 'localhost:4800')).to.equal(true);
  });

  it('allows a page of the service itself', () => {
    expect(isOriginAllowed('http://localhost:4800', 'localhost:4800')).to.equal(true);
    expect(isOriginAllowed('http://LOCALHOST:4800', 'localhost:4800')).to.equal(true);
    expect(isOriginAllowed('http://[::1]:4800', '[::1]:4800')).to.equal(true);
  });

  it('refuses a page of another origin: another host, port or scheme', () => {
    expect(isOriginAllowed('http://evil.test', 'localhost:4800')).to.equal(false);
    expect(isOriginAllowed('http://localhost:4801', 'localhost:4800')).to.equal(false);
    expect(isOriginAllowed('http://127.0.0.1:4800', 'localhost:4800')).to.equal(false);
    expect(isOriginAllowed('https://localhost:4800', 'localhost:4800')).to.equal(false);
  });

  it('refuses an opaque or malformed Origin, and an Origin without Host', () => {
    expect(isOriginAllowed('null', 'localhost:4800')).to.equal(false);
    expect(isOriginAllowed('not a url', 'localhost:4800')).to.equal(false);
    expect(isOriginAllowed('http://localhost:4800', undefined)).to.equal(false);
    expect(isOriginAllowed('http://localhost:4800', '')).to.equal(false);
  });
});

describe('createSocketRoutes', () => {
  it('answers the handler registered for a path, and nothing for others', () => {
    const routes = createSocketRoutes();
    const handler = () => {};
    routes.add('/events', handler);
    expect(routes.get('/events')).to.equal(handler);
    expect(routes.get('/events/')).to.equal(undefined);
  });
});

describe('verifyUpgrade', () => {
  const routes = createSocketRoutes();
  routes.add('/events', () => {});
  const verify = verifyUpgrade(routes, requestGuards({ allowedHosts: [], anyAddress: false }));
  const answer = (url: string, headers: Record<string, string>, method = 'GET') => {
    let result: unknown[] = [];
    verify({ origin: headers.origin ?? '', req: { url, headers, method } as unknown as IncomingMessage }, (...args) => (result = args));
    return result;
  };
  /** A refusal: its status, and the JSON body of README "Error codes" with its code and remedy. */
  const refusal = (result: unknown[]) => {
    const [accepted, status, body, headers] = result as [boolean, number, string, Record<string, string>];
    expect(accepted).to.equal(false);
    expect(headers['Content-Type']).to.match(/^application\/json/);
    const parsed = JSON.parse(body) as { code: keyof typeof ERROR_CODES; message: string; remedy: string };
    expect(parsed.remedy).to.equal(ERROR_CODES[parsed.code].remedy);
    return { status, code: parsed.code, message: parsed.message };
  };

  it('accepts an upgrade of a registered path from the service\'s own page or a tool', () => {
    expect(answer('/events', { host: 'localhost:4800', origin: 'http://localhost:4800' })).to.deep.equal([true]);
    expect(answer('/events?x=1', { host: 'localhost:4800' })).to.deep.equal([true]);
  });

  it('refuses an unknown path with 404, a foreign Host or Origin with 403, each with its JSON error body', () => {
    expect(refusal(answer('/other', { host: 'localhost:4800' }))).to.include({ status: 404, code: 'OUTPUT_NOT_AVAILABLE' });
    expect(refusal(answer('/events', { host: 'evil.test' }))).to.include({ status: 403, code: 'HOST_NOT_ALLOWED' });
    const foreign = refusal(answer('/events', { host: 'localhost:4800', origin: 'http://evil.test' }));
    expect(foreign).to.include({ status: 403, code: 'CROSS_SITE_REFUSED' });
    expect(foreign.message).to.include('http://evil.test');
  });

  it('runs the guards of every request first: a broken target or another method is refused as Koa refuses it', () => {
    expect(refusal(answer('/events%zz', { host: 'localhost:4800' }))).to.include({ status: 400, code: 'REQUEST_INVALID' });
    expect(refusal(answer('/events', { host: 'localhost:4800' }, 'POST'))).to.include({ status: 405, code: 'METHOD_NOT_ALLOWED' });
  });
});
