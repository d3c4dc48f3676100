// The DNS-rebinding guard: which Host headers are answered.
import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { ServiceError } from '../../../src/http/errors.js';
import { guardHost, hostName, isHostAllowed, type HostPolicy } from '../../../src/http/guards/guard-host.js';
import { guardRequests, requestGuards } from '../../../src/http/guards/request-guards.js';

const LOOPBACK_ONLY: HostPolicy = { allowedHosts: ['127.0.0.1'], anyAddress: false };

describe('hostName', () => {
  it('drops the port, lower-cases and drops a trailing dot', () => {
    expect(hostName('LocalHost:4800')).to.equal('localhost');
    expect(hostName('example.test.')).to.equal('example.test');
    expect(hostName('127.0.0.1')).to.equal('127.0.0.1');
  });

  it('is null for a port beyond 65535', () => {
    expect(hostName('localhost:65535')).to.equal('localhost');
    expect(hostName('localhost:99999')).to.equal(null);
  });

  it('unwraps IPv6 literals', () => {
    expect(hostName('[::1]:4800')).to.equal('::1');
    expect(hostName('[FE80::1]')).to.equal('fe80::1');
  });

  it('is null for a missing, malformed or oversized header', () => {
    for (const header of [undefined, '', 'a b', 'evil.test/path', 'user@localhost', 'localhost:', 'localhost:123456', '[::1', '[not-ipv6]', '[127.0.0.1]', '::1', 'localhost:80:80', `${'a'.repeat(256)}`]) {
      expect(hostName(header), String(header)).to.equal(null);
    }
  });
});

describe('isHostAllowed', () => {
  it('allows loopback names with any port', () => {
    for (const header of ['localhost', 'localhost:4800', '127.0.0.1:4800', '[::1]:4800', 'LOCALHOST.', 'app.localhost:4800']) {
      expect(isHostAllowed(header, LOOPBACK_ONLY), header).to.equal(true);
    }
  });

  it('refuses other names and addresses: a rebound name keeps its own Host', () => {
    for (const header of ['evil.test', 'evil.test:4800', '192.168.1.10:4800', 'localhost.evil.test', '[::2]:4800', '127.0.0.2']) {
      expect(isHostAllowed(header, LOOPBACK_ONLY), header).to.equal(false);
    }
  });

  it('refuses a malformed or missing Host', () => {
    for (const header of [undefined, '', 'localhost/x', '[::1']) expect(isHostAllowed(header, LOOPBACK_ONLY), String(header)).to.equal(false);
  });

  it('allows the names given with --host and --allowed-host, in any case, IPv6 in brackets or not', () => {
    const policy: HostPolicy = { allowedHosts: ['Dev.Example.TEST', '[fd00::5]', '192.168.1.10'], anyAddress: false };
    for (const header of ['dev.example.test', 'DEV.example.test:4800', '[fd00::5]:4800', '192.168.1.10:4800']) expect(isHostAllowed(header, policy), header).to.equal(true);
    expect(isHostAllowed('other.example.test', policy)).to.equal(false);
  });

  it('allows any IP address, but no other name, when bound to every interface', () => {
    const wildcard: HostPolicy = { allowedHosts: [], anyAddress: true };
    for (const header of ['192.168.1.10:4800', '[fd00::5]:4800', '10.0.0.1']) expect(isHostAllowed(header, wildcard), header).to.equal(true);
    expect(isHostAllowed('evil.test:4800', wildcard)).to.equal(false);
  });
});

describe('guardHost', () => {
  // A fake Koa context whose request's only header is Host, through the guards' middleware.
  async function run(host: string | undefined, policy = LOOPBACK_ONLY): Promise<{ error: ServiceError | null; next: boolean }> {
    let next = false;
    const ctx = { req: { url: '/state', method: 'GET', headers: host === undefined ? {} : { host } } } as unknown as Context;
    try {
      await guardRequests(requestGuards(policy))(ctx, async () => {
        next = true;
      });
      return { error: null, next };
    } catch (error) {
      return { error: error as ServiceError, next };
    }
  }

  it('passes an allowed Host on', async () => {
    expect(await run('localhost:4800')).to.deep.equal({ error: null, next: true });
  });

  it('answers HOST_NOT_ALLOWED, naming the --allowed-host that would allow it', async () => {
    const { error, next } = await run('dev.example.test:4800');
    expect(next).to.equal(false);
    expect(error).to.be.instanceOf(ServiceError);
    expect(error!.code).to.equal('HOST_NOT_ALLOWED');
    expect(error!.status).to.equal(403);
    expect(error!.message).to.contain('"dev.example.test:4800"').and.contain('--allowed-host dev.example.test');
  });

  it('checks the host an absolute-form target names, which HTTP/1.1 puts over the Host header', () => {
    const guard = guardHost(LOOPBACK_ONLY);
    const request = (url: string, host: string) => ({ url, headers: { host } }) as unknown as IncomingMessage;
    expect(guard(request('http://evil.test/state', 'localhost:4800'))?.code).to.equal('HOST_NOT_ALLOWED');
    expect(guard(request('http://localhost:4800/state', 'evil.test'))).to.equal(null);
  });

  it('answers HOST_NOT_ALLOWED for a request without Host', async () => {
    const { error } = await run(undefined);
    expect(error!.code).to.equal('HOST_NOT_ALLOWED');
    expect(error!.message).to.contain('(none)');
  });
});
