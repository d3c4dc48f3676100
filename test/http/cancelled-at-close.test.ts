// A build or join the close cancels is the close's expected end, not a defect (README "The
// programmatic API"): a request that waited on it is answered 503 SERVICE_CLOSING when its
// connection is still open, and nothing is logged; any other exception stays a logged defect.
import { expect } from 'chai';
import Koa from 'koa';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BuildCancelled } from '../../src/bundlers/types.js';
import { asServiceError } from '../../src/http/errors.js';
import { respondWithErrors } from '../../src/http/middleware/respond-with-errors.js';

describe('a request whose build or join the close cancelled', () => {
  it('is SERVICE_CLOSING, logged nowhere', () => {
    const logged: string[] = [];
    const error = asServiceError(new BuildCancelled(), (message) => logged.push(message));
    expect(error.code).to.equal('SERVICE_CLOSING');
    expect(error.status).to.equal(503);
    expect(logged).to.deep.equal([]);
  });

  it('is answered 503 with its code through the error middleware, nothing logged', async () => {
    const logged: string[] = [];
    const koa = new Koa();
    koa.use(respondWithErrors((message) => logged.push(message)));
    koa.use(() => Promise.reject(new BuildCancelled()));
    const server = http.createServer(koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/preview/bundled/code.js`);
      expect(answer.status).to.equal(503);
      expect(((await answer.json()) as { code: string }).code).to.equal('SERVICE_CLOSING');
      expect(logged).to.deep.equal([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('leaves any other exception a defect: logged with its stack, 500 INTERNAL_ERROR', () => {
    const logged: string[] = [];
    expect(asServiceError(new Error('a slip'), (message) => logged.push(message)).code).to.equal('INTERNAL_ERROR');
    expect(logged).to.have.length(1);
    expect(logged[0]).to.include('core: internal error: Error: a slip');
  });
});
