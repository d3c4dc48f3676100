// REQUEST_INVALID for request-targets that cannot be parsed safely, before any route.
import { expect } from 'chai';
import type { Context } from 'koa';
import { ServiceError } from '../../../src/http/errors.js';
import { checkRequestTarget, MAX_TARGET_LENGTH } from '../../../src/http/guards/refuse-unsafe-target.js';
import { guardRequests, requestGuards } from '../../../src/http/guards/request-guards.js';

describe('checkRequestTarget', () => {
  it('accepts ordinary targets, with encoded characters, queries and plus signs', () => {
    for (const target of ['/', '/state', '/m/@acme/app@1.0.0/modules/main?env=production&v=1', '/m/%40acme/app%401.0.0/assets/main/my%20logo.svg', '/log?since=3+4', '/m/a/..%2f']) {
      expect(checkRequestTarget(target), target).to.equal(null);
    }
  });

  it('refuses a fragment', () => {
    expect(checkRequestTarget('/state#top')).to.contain('"#"');
  });

  it('refuses a NUL byte, raw or encoded', () => {
    expect(checkRequestTarget('/state\0')).to.contain('NUL byte');
    expect(checkRequestTarget('/m/x%00.js')).to.contain('encoded NUL byte');
  });

  it('refuses malformed percent-encoding, in the path or the query', () => {
    for (const target of ['/m/%', '/m/%zz', '/m/%c3%28', '/state?x=%E0%A4%A']) {
      expect(checkRequestTarget(target), target).to.equal('the request-target holds malformed percent-encoding');
    }
  });

  it('refuses a target longer than 8 KiB, and accepts one of exactly that length', () => {
    expect(checkRequestTarget(`/${'a'.repeat(MAX_TARGET_LENGTH - 1)}`)).to.equal(null);
    expect(checkRequestTarget(`/${'a'.repeat(MAX_TARGET_LENGTH)}`)).to.equal(`the request-target is longer than ${MAX_TARGET_LENGTH} characters`);
  });
});

describe('refuseUnsafeTarget', () => {
  // A fake Koa context, through the guards' middleware: an allowed Host, the target and the method.
  async function run(url: string, method = 'GET'): Promise<{ error: ServiceError | null; next: boolean }> {
    let next = false;
    try {
      await guardRequests(requestGuards({ allowedHosts: [], anyAddress: false }))({ req: { url, method, headers: { host: 'localhost' } } } as unknown as Context, async () => {
        next = true;
      });
      return { error: null, next };
    } catch (error) {
      return { error: error as ServiceError, next };
    }
  }

  it('passes GET and HEAD requests for safe targets on', async () => {
    expect(await run('/state')).to.deep.equal({ error: null, next: true });
    expect(await run('/state', 'HEAD')).to.deep.equal({ error: null, next: true });
  });

  it('answers REQUEST_INVALID for an unsafe target, before anything else', async () => {
    const { error, next } = await run('/m/%zz', 'POST');
    expect(next).to.equal(false);
    expect(error).to.be.instanceOf(ServiceError);
    expect(error!.code).to.equal('REQUEST_INVALID');
    expect(error!.status).to.equal(400);
  });

  it('answers METHOD_NOT_ALLOWED with an Allow header for other methods', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      const { error, next } = await run('/state', method);
      expect(next).to.equal(false);
      expect(error!.code, method).to.equal('METHOD_NOT_ALLOWED');
      expect(error!.status).to.equal(405);
      expect(error!.headers).to.deep.equal({ Allow: 'GET, HEAD' });
    }
  });
});
