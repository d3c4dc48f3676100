// Which pages may open the push channel.
import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
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
  const verify = verifyUpgrade(routes, { allowedHosts: [], anyAddress: false });
  const answer = (url: string, headers: Record<string, string>) => {
    let result: unknown[] = [];
    verify({ origin: headers.origin ?? '', req: { url, headers } as unknown as IncomingMessage }, (...args) => (result = args));
    return result;
  };

  it('accepts an upgrade of a registered path from the service\'s own page or a tool', () => {
    expect(answer('/events', { host: 'localhost:4800', origin: 'http://localhost:4800' })).to.deep.equal([true]);
    expect(answer('/events?x=1', { host: 'localhost:4800' })).to.deep.equal([true]);
  });

  it('refuses an unknown path with 404, a foreign Host or Origin with 403', () => {
    expect(answer('/other', { host: 'localhost:4800' })).to.deep.equal([false, 404, 'Not Found']);
    expect(answer('/events', { host: 'evil.test' })).to.deep.equal([false, 403, 'Host not allowed']);
    expect(answer('/events', { host: 'localhost:4800', origin: 'http://evil.test' })).to.deep.equal([false, 403, 'Origin not allowed']);
  });
});
