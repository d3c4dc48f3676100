// The remote cache's client (README "A team's remote cache"): every failure is counted by kind
// and never retried, and after three the breaker keeps the rest of the run from asking.
import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import { createRemoteClient } from '../../../src/io/remote-cache/client.js';

const DIGEST = 'a'.repeat(64);
const settingsAt = (port: number) => ({ base: new URL(`http://127.0.0.1:${port}/team/`), header: ['Authorization', 'Bearer secret'] as const, publicKey: null });

describe('createRemoteClient', () => {
  const servers: net.Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
  });
  async function listening(server: net.Server): Promise<number> {
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as net.AddressInfo).port;
  }

  it('asks under the instance with the configured header; 200 is found, 404 missing', async () => {
    const seen: string[] = [];
    const port = await listening(
      http.createServer((request, response) => {
        seen.push(`${request.method} ${request.url} ${request.headers.authorization}`);
        if (request.url === `/team/cas/${DIGEST}`) response.end('bytes');
        else response.writeHead(404).end();
      }),
    );
    const client = createRemoteClient(settingsAt(port));
    expect(await client.get('cas', DIGEST)).to.deep.equal({ found: Buffer.from('bytes') });
    expect(await client.get('ac', DIGEST)).to.deep.equal({ missing: true });
    client.close();
    expect(seen).to.deep.equal([`GET /team/cas/${DIGEST} Bearer secret`, `GET /team/ac/${DIGEST} Bearer secret`]);
  });

  it('opens its breaker after three failures: nothing more is asked', async () => {
    let asked = 0;
    const port = await listening(
      http.createServer((_request, response) => {
        asked += 1;
        response.writeHead(503).end();
      }),
    );
    const client = createRemoteClient(settingsAt(port));
    for (let i = 0; i < 3; i += 1) expect(await client.get('ac', DIGEST)).to.deep.equal({ failed: 'server-error' });
    expect(await client.get('ac', DIGEST)).to.deep.equal({ skipped: true });
    expect(await client.put('cas', DIGEST, Buffer.from('x'))).to.deep.equal({ skipped: true });
    client.close();
    expect(asked).to.equal(3);
  });

  // nginx answers 301 for a directory standing at an entry's place: the server answered, with
  // nothing usable, and no server error happened.
  it('tells a status the protocol does not use as unexpected, a 5xx as a server error, 401 and 403 as denied', async () => {
    const statuses = [301, 400, 500, 401, 403];
    const port = await listening(http.createServer((_request, response) => response.writeHead(statuses.shift()!, { location: '/elsewhere/' }).end()));
    const kinds: unknown[] = [];
    for (let i = 0; i < 5; i += 1) {
      // A new client each time: three failures open one client's breaker.
      const client = createRemoteClient(settingsAt(port));
      kinds.push(await client.get('ac', DIGEST));
      client.close();
    }
    expect(kinds).to.deep.equal([{ failed: 'unexpected-status' }, { failed: 'unexpected-status' }, { failed: 'server-error' }, { failed: 'denied' }, { failed: 'denied' }]);
  });

  it('a server that accepts and never answers (a mock): a timeout, at the time limit, and nothing more is asked', async () => {
    let connections = 0;
    const port = await listening(net.createServer(() => (connections += 1)));
    const client = createRemoteClient(settingsAt(port), { timeoutMs: 50 });
    expect(await client.get('ac', DIGEST)).to.deep.equal({ failed: 'timeout' });
    // A hung cache costs one time limit, not three: the breaker is open after the first.
    expect(await client.get('ac', DIGEST)).to.deep.equal({ skipped: true });
    client.close();
    expect(connections).to.equal(1);
  });

  it('a server that answers a byte now and then (a mock): a timeout once a time limit brought too little of the body', async () => {
    const port = await listening(
      net.createServer((socket) => {
        socket.setNoDelay(true);
        socket.once('data', () => {
          socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n');
          // Well within the limit between two bytes, far too slow for the body ever to come.
          const trickle = setInterval(() => socket.write('x'), 10);
          socket.on('close', () => clearInterval(trickle));
          socket.on('error', () => clearInterval(trickle));
        });
      }),
    );
    const client = createRemoteClient(settingsAt(port), { timeoutMs: 300 });
    expect(await client.get('cas', DIGEST)).to.deep.equal({ failed: 'timeout' });
    client.close();
  });

  // A proxy, or a cache server under load, sending each window's 16 KiB and a byte more: the
  // rule per window holds, and the body would take hours.
  const tricklingInsideTheRule = (socket: net.Socket, every: number) => {
    socket.setNoDelay(true);
    socket.once('data', () => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n`);
      const trickle = setInterval(() => socket.write(Buffer.alloc(16 * 1024 + 1, 120)), every);
      socket.on('close', () => clearInterval(trickle));
      socket.on('error', () => clearInterval(trickle));
    });
  };

  it('a server that keeps the 16 KiB rule but never ends its body (a mock): a timeout at the request\'s whole limit', async () => {
    const port = await listening(net.createServer((socket) => tricklingInsideTheRule(socket, 100)));
    const client = createRemoteClient(settingsAt(port), { timeoutMs: 500, requestMs: 1500 });
    expect(await client.get('cas', DIGEST)).to.deep.equal({ failed: 'timeout' });
    expect(await client.get('cas', DIGEST)).to.deep.equal({ skipped: true });
    client.close();
  });

  it('a budget for all the requests (a mock answering each slowly, within every limit): once spent, the request in flight is a timeout and nothing more is asked', async () => {
    let asked = 0;
    const port = await listening(
      http.createServer((_request, response) => {
        asked += 1;
        setTimeout(() => response.end('slow'), 100);
      }),
    );
    const client = createRemoteClient(settingsAt(port), { timeoutMs: 5000, requestMs: 5000, budgetMs: 1000 });
    const answers = [];
    for (let i = 0; i < 60; i += 1) answers.push(await client.get('cas', DIGEST));
    const found = answers.filter((answer) => 'found' in answer).length;
    expect(found).to.be.greaterThan(0);
    // Each answer came, one after another, until the budget ended the one in flight.
    expect(answers.slice(0, found).every((answer) => 'found' in answer)).to.equal(true);
    expect(answers[found]).to.deep.equal({ failed: 'timeout' });
    expect(answers.slice(found + 1)).to.deep.equal(Array.from({ length: 60 - found - 1 }, () => ({ skipped: true })));
    // The one given up may not have reached the server yet; none after it was sent.
    expect(asked).to.be.within(found, found + 1);
    client.close();
  });

  it('a body that comes whole within the limit is taken, however small', async () => {
    const port = await listening(http.createServer((_request, response) => response.end('small')));
    const client = createRemoteClient(settingsAt(port), { timeoutMs: 100 });
    expect(await client.get('cas', DIGEST)).to.deep.equal({ found: Buffer.from('small') });
    client.close();
  });

  it('a refused connection opens the breaker at once', async () => {
    const closed = await listening(net.createServer());
    servers.pop()!.close();
    const client = createRemoteClient(settingsAt(closed));
    expect(await client.get('ac', DIGEST)).to.deep.equal({ failed: 'refused' });
    expect(await client.get('cas', DIGEST)).to.deep.equal({ skipped: true });
    client.close();
  });

  it('refused connections, bodies over the bound, and 403 on PUT each have their kind', async () => {
    const closed = await listening(net.createServer());
    servers.pop()!.close();
    const refusing = createRemoteClient(settingsAt(closed));
    expect(await refusing.get('ac', DIGEST)).to.deep.equal({ failed: 'refused' });
    refusing.close();

    const port = await listening(
      http.createServer((request, response) => {
        if (request.method === 'PUT') response.writeHead(403).end();
        else response.end('x'.repeat(100));
      }),
    );
    const client = createRemoteClient(settingsAt(port), { maxBodyBytes: 10 });
    expect(await client.get('cas', DIGEST)).to.deep.equal({ failed: 'too-large' });
    expect(await client.put('cas', DIGEST, Buffer.from('x'))).to.deep.equal({ failed: 'denied' });
    client.close();
  });
});
