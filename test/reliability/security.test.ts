// SECURITY.md, guard by guard, against real services: where the server listens, who may
// ask (the Host guard, no wildcard CORS on development addresses, CROSS_SITE_REFUSED), what
// may be served (unsafe request-targets, `..` in any encoding, symbolic links), `/events`
// only pushing, and hostile headers, huge URLs and slow clients that neither crash the
// server nor stall other clients. (The generated addresses of properties.test.ts cover the
// request-target rules in depth; here each rule is shown once, by name.)
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import WebSocket from 'ws';
import { expectError } from '../helpers/answers.js';
import { killAllCores, startCore } from '../helpers/cli.js';
import { DEV, fixtureWorkspace, PROD } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { rawRequest } from '../helpers/raw-request.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { defects, parseNdjson, stateOf, type Served } from './support.js';

const DEV_CODE = `/m/@acme/app@1.0.0/modules/main?${DEV}`;
const DEV_STYLES = `/m/@acme/app@1.0.0/styles/main?${DEV}`;
const PROD_CODE = `/m/@acme/app@1.0.0/modules/main?${PROD}`;
const PROD_STYLES = `/m/@acme/app@1.0.0/styles/main?${PROD}`;
const ASSET = '/m/@acme/app@1.0.0/assets/main/logo.svg';
/** Every development address family: outputs of every development variant, the preview, /state, /log, the runtime. */
const DEVELOPMENT_ADDRESSES = [
  DEV_CODE,
  DEV_STYLES,
  '/m/@acme/app@1.0.0/modules/main',
  '/m/@acme/app@1.0.0/modules/main?min=true',
  '/m/@acme/app@1.0.0/modules/main?sourcemap=none',
  '/m/@acme/lib@1.2.0/modules/server?target=node',
  '/state',
  '/log',
  '/preview/',
  '/preview/entry.json',
  '/u/runtime.js',
];
const ANY_ORIGIN_ADDRESSES = [PROD_CODE, PROD_STYLES, '/m/@acme/app@1.0.0/modules/main?env=production', '/m/@acme/lib@1.2.0/modules/server?target=node&env=production', ASSET];
const CROSS_SITE_SCRIPT = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'script', origin: 'https://evil.test', referer: 'https://evil.test/page' };

/** Opens a WebSocket; resolves once open, or to the status of a refused upgrade. */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<{ socket: WebSocket; messages: string[] } | { status: number }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    const messages: string[] = [];
    socket.on('message', (data) => messages.push(String(data)));
    socket.once('unexpected-response', (_request, response) => resolve({ status: response.statusCode ?? 0 }));
    socket.once('open', () => resolve({ socket, messages }));
    socket.once('error', reject);
  });
}

describe('SECURITY.md: security of the development server', function () {
  this.timeout(60_000);
  let service: Served;
  let root: string;
  const reported: string[] = [];

  before(async function () {
    root = fixtureWorkspace('basic');
    service = await serve(root, { logger: (line) => reported.push(line) });
    await stateOf(service);
  });
  after(async function () {
    await service?.close();
    await killAllCores();
  });
  afterEach(async function () {
    expect(defects(reported), 'internal errors reported').to.deep.equal([]);
    expect((await service.get('/state')).status, 'the service still answers').to.equal(200);
  });

  describe('bound to loopback unless --host says otherwise', function () {
    it('listens on 127.0.0.1 by default, in process and from the command line', async function () {
      const address = service.internals.server.address() as net.AddressInfo;
      expect(address.address).to.equal('127.0.0.1');
      const core = await startCore(['--port', '0'], { cwd: root });
      try {
        expect(core.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/$/);
        expect((await get(core.url, '/state')).status).to.equal(200);
      } finally {
        await core.stop();
      }
    });

    it('cannot be reached on the other addresses of the machine', async function () {
      const external = Object.values(os.networkInterfaces())
        .flat()
        .filter((entry): entry is os.NetworkInterfaceInfo => !!entry && !entry.internal && entry.family === 'IPv4')
        .map((entry) => entry.address);
      if (external.length === 0) this.skip(); // a machine with loopback only has nothing else to try
      for (const address of external) {
        const outcome = await new Promise<string>((resolve) => {
          const socket = net.connect(service.port, address);
          socket.once('connect', () => (socket.destroy(), resolve('connected')));
          socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
        });
        expect(outcome, `a connection to ${address}:${service.port}`).to.equal('ECONNREFUSED');
      }
    });

    it('accepts IP-address Hosts but never a name when bound to every interface', async function () {
      const wide = await serve(root, { host: '0.0.0.0', logger: () => {} });
      try {
        expect((await get(`http://127.0.0.1:${wide.port}/`, '/state', { host: `192.168.1.20:${wide.port}` })).status).to.equal(200);
        expectError(await get(`http://127.0.0.1:${wide.port}/`, '/state', { host: 'rebound.evil.test' }), { status: 403, code: 'HOST_NOT_ALLOWED', mentions: ['rebound.evil.test'] });
      } finally {
        await wide.close();
      }
    });
  });

  describe('the Host guard (DNS rebinding)', function () {
    // (An empty Host is replaced by Node's client with its own: errors.test.ts sends it raw.)
    const refusedHosts = ['evil.test', 'evil.test:80', '127.0.0.1.nip.io', 'localhost.evil.test', 'evil.test.', '192.168.1.20', '0.0.0.0', '[::ffff:127.0.0.1]', 'LOCALHOST.evil.test', ' ', 'localhost:', 'localhost:-1', 'local host', 'localhost\tx', 'localhost, evil.test'];

    it('refuses every other Host on every address family, HTTP and WebSocket', async function () {
      for (const host of refusedHosts) {
        for (const address of [...DEVELOPMENT_ADDRESSES, ...ANY_ORIGIN_ADDRESSES, '/nothing', '/m/']) {
          const answer = await service.get(address, { host });
          expect(answer.status, `${address} with Host ${JSON.stringify(host)}`).to.be.oneOf([400, 403]);
          expect(answer.headers['content-type']).to.match(/^application\/json/);
          expect(answer.json().code).to.be.oneOf(['HOST_NOT_ALLOWED', 'REQUEST_INVALID']);
          expect(answer.text).not.to.include('APP_HELPER_MARKER');
          expect(answer.headers).not.to.have.property('access-control-allow-origin');
        }
        if (host.trim() !== '' && !/\s/.test(host) && !host.includes(',')) {
          const refused = await upgrade(`${service.url.replace(/^http/, 'ws')}events`, { host });
          expect(refused, `the /events upgrade with Host ${host}`).to.deep.equal({ status: 403 });
        }
      }
    });

    it('refuses an empty, a missing and a doubled Host, and an absolute-form target naming another host, even for an answer served before', async function () {
      expect((await service.get(DEV_CODE)).status).to.equal(200); // answered once, as a page would
      for (const [what, head] of [
        ['an empty Host', `GET ${DEV_CODE} HTTP/1.1\r\nHost:\r\n`],
        ['no Host', `GET ${DEV_CODE} HTTP/1.0\r\n`],
        ['two Host headers', `GET ${DEV_CODE} HTTP/1.1\r\nHost: localhost\r\nHost: evil.test\r\n`],
        ['two Host headers, the allowed one last', `GET ${DEV_CODE} HTTP/1.1\r\nHost: evil.test\r\nHost: localhost\r\n`],
        ['an absolute-form target of another host', `GET http://evil.test${DEV_CODE} HTTP/1.1\r\nHost: localhost\r\n`],
        ['an absolute-form target with user information', `GET http://localhost@evil.test${DEV_CODE} HTTP/1.1\r\nHost: localhost\r\n`],
      ] as const) {
        const answer = await rawRequest(service.port, `${head}Connection: close\r\n\r\n`);
        expect(answer.status, what).to.equal(403);
        expect(JSON.parse(answer.body).code, what).to.equal('HOST_NOT_ALLOWED');
        expect(answer.body, what).not.to.include('APP_HELPER_MARKER');
      }
      // An absolute-form target naming an allowed host is answered like its origin form.
      const allowed = await rawRequest(service.port, `GET http://localhost:${service.port}${DEV_CODE} HTTP/1.1\r\nHost: evil.test\r\nConnection: close\r\n\r\n`);
      expect(allowed.status).to.equal(200);
    });
  });

  describe('no wildcard CORS on development addresses', function () {
    it('never sends Access-Control-Allow-Origin (or -Credentials) on development addresses, whatever the request says', async function () {
      const variants: Record<string, string>[] = [{}, { origin: 'https://evil.test' }, CROSS_SITE_SCRIPT, { origin: 'null' }, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', origin: 'https://evil.test' }];
      for (const headers of variants) {
        for (const address of DEVELOPMENT_ADDRESSES) {
          const answer = await service.get(address, headers);
          expect(answer.status, `${address} ${JSON.stringify(headers)}`).to.be.oneOf([200, 403]);
          expect(answer.headers, `${address} ${JSON.stringify(headers)}`).not.to.have.property('access-control-allow-origin');
          expect(answer.headers, address).not.to.have.property('access-control-allow-credentials');
        }
      }
      // Nor on a 304 of development output, nor on a preflight.
      const etag = (await service.get(DEV_CODE)).headers.etag!;
      const notModified = await service.get(DEV_CODE, { 'if-none-match': etag, origin: 'https://evil.test' });
      expect(notModified.status).to.equal(304);
      expect(notModified.headers).not.to.have.property('access-control-allow-origin');
      const preflight = await service.get(DEV_CODE, { origin: 'https://evil.test', 'access-control-request-method': 'GET' }, 'OPTIONS');
      expect(preflight.status).to.equal(405);
      expect(preflight.headers).not.to.have.property('access-control-allow-origin');
    });

    it('never sends it on the /events upgrade', async function () {
      const opened = await upgrade(`${service.url.replace(/^http/, 'ws')}events`);
      expect(opened).to.have.property('socket');
      (opened as { socket: WebSocket }).socket.terminate();
      const refused = await rawRequest(
        service.port,
        `GET /events HTTP/1.1\r\nHost: localhost\r\nOrigin: https://evil.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
      expect(refused.status).to.equal(403);
      expect(refused.headers).not.to.have.property('access-control-allow-origin');
    });

    it('lets any origin load production outputs and declared assets, with Access-Control-Allow-Origin: *', async function () {
      for (const address of ANY_ORIGIN_ADDRESSES) {
        const answer = await service.get(address, CROSS_SITE_SCRIPT);
        expect(answer.status, address).to.equal(200);
        expect(answer.headers['access-control-allow-origin'], address).to.equal('*');
      }
    });
  });

  describe('CROSS_SITE_REFUSED', function () {
    it('refuses development output loaded as a no-cors script or stylesheet of another site, even once it was served and cached', async function () {
      for (const address of DEVELOPMENT_ADDRESSES.filter((a) => a.startsWith('/m/'))) {
        // Served first to the developer's own page, so a repeated answer could come from a cache.
        expect((await service.get(address)).status, address).to.equal(200);
        expect((await service.get(address)).status, address).to.equal(200);
        for (const dest of ['script', 'style', 'empty']) {
          const answer = await service.get(address, { ...CROSS_SITE_SCRIPT, 'sec-fetch-dest': dest });
          expectError(answer, { status: 403, code: 'CROSS_SITE_REFUSED' });
          expect(answer.text).not.to.include('APP_HELPER_MARKER');
          expect(answer.text).not.to.include('sourceMappingURL');
        }
        const head = await service.get(address, CROSS_SITE_SCRIPT, 'HEAD');
        expect(head.status, `HEAD ${address}`).to.equal(403);
      }
    });

    it('serves the same output to the same site, and to tools that send no Sec-Fetch headers', async function () {
      for (const site of ['same-origin', 'same-site', 'none']) {
        expect((await service.get(DEV_CODE, { 'sec-fetch-site': site, 'sec-fetch-mode': 'no-cors' })).status, site).to.equal(200);
      }
      expect((await service.get(DEV_CODE)).status).to.equal(200);
    });
  });

  describe('what may be served', function () {
    it('answers 400 REQUEST_INVALID to "#", NUL bytes and malformed percent-encoding, as JSON', async function () {
      for (const target of [`${DEV_CODE}#x`, '/m/@acme/app@1.0.0/modules/ma\0in', '/state#', '/m/@acme/app@1.0.0/assets/main/logo.svg#/../../package.json']) {
        const answer = await rawRequest(service.port, `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
        expect(answer.status, JSON.stringify(target)).to.equal(400);
        expect(JSON.parse(answer.body).code).to.equal('REQUEST_INVALID');
      }
      for (const address of ['/m/@acme/app@1.0.0/modules/main%00', '/m/@acme/app@1.0.0/modules/%E0%A4%A', `${DEV_CODE}&v=%`, '/m/%ZZ/x', '/state?%00=1']) {
        expectError(await service.get(address), { status: 400, code: 'REQUEST_INVALID' });
      }
    });

    it('never leaves a module through `..`, in any encoding: 404 OUTPUT_NOT_AVAILABLE', async function () {
      const spellings = ['..', '%2e%2e', '%2E%2E', '.%2e', '%2e.', '%252e%252e', '%c0%ae%c0%ae', '..%2f..', '..%5c..', '..\\..'];
      for (const dots of spellings) {
        for (const address of [`/m/@acme/app@1.0.0/assets/main/${dots}/package.json`, `/m/@acme/app@1.0.0/modules/main/${dots}/templates`, `/m/@acme/app@1.0.0/assets/main/${dots}/${dots}/${dots}/core.json`]) {
          const answer = await service.get(address);
          expect(answer.status, address).to.be.oneOf([400, 404]);
          expect(answer.json().code, address).to.be.oneOf(['OUTPUT_NOT_AVAILABLE', 'REQUEST_INVALID']);
          expect(answer.text, address).not.to.include('Acme demo application');
          expect(answer.text, address).not.to.include('"packages"');
        }
      }
    });

    it('does not serve a declared asset whose real path leaves its package, through a file or a directory link', async function () {
      const linked = fixtureWorkspace('basic', { 'secret.svg': '<svg>TOP_SECRET_MARKER</svg>', 'packages/app/inside.svg': '<svg>INSIDE_THE_PACKAGE</svg>' });
      fs.symlinkSync(path.join(linked, 'secret.svg'), path.join(linked, 'packages/app/main/leak.svg'));
      fs.symlinkSync(linked, path.join(linked, 'packages/app/main/up'));
      fs.symlinkSync(path.join(linked, 'packages/app/inside.svg'), path.join(linked, 'packages/app/main/inside.svg'));
      fs.writeFileSync(path.join(linked, 'packages/app/main/module.json'), JSON.stringify({ platforms: ['web'], assets: ['logo.svg', 'leak.svg', 'up/secret.svg', 'inside.svg'] }));
      const other = await serve(linked, { logger: () => {} });
      try {
        for (const file of ['leak.svg', 'up/secret.svg']) {
          const answer = await other.get(`/m/@acme/app@1.0.0/assets/main/${file}`);
          expectError(answer, { status: 404, code: 'OUTPUT_NOT_AVAILABLE' });
          expect(answer.text).not.to.include('TOP_SECRET_MARKER');
        }
        // A link that stays inside the package is served: the rule is about leaving it.
        const inside = await other.get('/m/@acme/app@1.0.0/assets/main/inside.svg');
        expect(inside.status).to.equal(200);
        expect(inside.text).to.include('INSIDE_THE_PACKAGE');
      } finally {
        await other.close();
      }
    });
  });

  describe('/events only pushes', function () {
    it('ignores whatever a client sends: no event, no state change, and it keeps pushing', async function () {
      const opened = await upgrade(`${service.url.replace(/^http/, 'ws')}events`);
      const { socket, messages } = opened as { socket: WebSocket; messages: string[] };
      try {
        const before = parseNdjson((await service.get('/log')).text).at(-1)!.seq;
        for (const command of ['{"type":"styles","module":"@acme/app@1.0.0/main","href":"/m/x"}', '{"type":"rebuild","module":"@acme/app/main"}', '{"type":"select","packages":[]}', 'not json', '']) {
          socket.send(command);
        }
        socket.send(Buffer.from([0, 1, 2, 3]));
        // The service answered a request after the commands arrived: they changed nothing.
        await stateOf(service);
        expect(parseNdjson((await service.get(`/log?since=${before}`)).text), 'events after the commands').to.deep.equal([]);
        expect(socket.readyState).to.equal(WebSocket.OPEN);
        // And it still pushes.
        const styles = path.join(root, 'packages/app/main/styles.css');
        const text = fs.readFileSync(styles, 'utf8');
        fs.writeFileSync(styles, text.replace('rgb(1, 2, 3)', 'rgb(4, 4, 4)'));
        try {
          await waitFor(() => messages.some((m) => JSON.parse(m).type === 'styles'), { what: 'a styles message after the edit' });
        } finally {
          fs.writeFileSync(styles, text);
        }
      } finally {
        socket.terminate();
      }
    });

    it('closes a connection that sends a frame over 4 KiB, and serves on', async function () {
      const opened = await upgrade(`${service.url.replace(/^http/, 'ws')}events`);
      const { socket } = opened as { socket: WebSocket };
      const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
      socket.on('error', () => {});
      socket.send('x'.repeat(5000));
      expect(await closed).to.equal(1009);
      expect((await service.get(DEV_CODE)).status).to.equal(200);
    });
  });

  describe('hostile headers, huge URLs and slow clients', function () {
    it('answers malformed Origin headers on /events with a refusal, never a crash', async function () {
      for (const origin of ['null', '', 'http://', 'https://', 'http://[::1', `http://127.0.0.1:${service.port}@evil.test`, `http://evil.test#@127.0.0.1:${service.port}`, 'file://', 'x'.repeat(5000), 'http://%00', `http://localhost:${service.port}/path`]) {
        const answer = await rawRequest(
          service.port,
          `GET /events HTTP/1.1\r\nHost: 127.0.0.1:${service.port}\r\nOrigin: ${origin}\r\nUpgrade: websocket\r\nConnection: Upgrade, close\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        );
        expect(answer.status, `Origin ${origin.slice(0, 60)}`).to.be.oneOf([400, 403]);
      }
      // The service's own origin (with a path, as some clients send) is the only one accepted besides none.
      const own = await upgrade(`${service.url.replace(/^http/, 'ws')}events`, { origin: `http://127.0.0.1:${service.port}` });
      expect(own).to.have.property('socket');
      (own as { socket: WebSocket }).socket.terminate();
    });

    it('answers huge request-targets and headers with a JSON 400, and serves on', async function () {
      for (const length of [8193, 20_000, 100_000, 1_000_000]) {
        const answer = await rawRequest(service.port, `GET /m/@acme/app@1.0.0/modules/${'a'.repeat(length)} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
        expect(answer.status, `a target of ${length}`).to.be.oneOf([400, 431]);
        expect(JSON.parse(answer.body).code).to.equal('REQUEST_INVALID');
        expect(answer.body.length).to.be.below(2000);
      }
      const header = await rawRequest(service.port, `GET /state HTTP/1.1\r\nHost: localhost\r\nCookie: ${'c'.repeat(100_000)}\r\nConnection: close\r\n\r\n`);
      expect(header.status).to.be.oneOf([400, 431]);
      expect(JSON.parse(header.body).code).to.equal('REQUEST_INVALID');
      const many = await rawRequest(service.port, `GET /state HTTP/1.1\r\nHost: localhost\r\n${Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`).join('\r\n')}\r\nConnection: close\r\n\r\n`);
      expect(many.status).to.be.below(500);
      expect((await service.get(DEV_CODE)).status).to.equal(200);
    });

    it('keeps answering other clients while slow clients trickle requests and refuse to read', async function () {
      const slow: net.Socket[] = [];
      const timers: NodeJS.Timeout[] = [];
      try {
        // Slowloris: request lines and headers a byte at a time, never finished.
        for (let index = 0; index < 40; index += 1) {
          const socket = net.connect(service.port, '127.0.0.1');
          socket.on('error', () => {});
          const request = `GET /m/@acme/app@1.0.0/modules/main?${DEV} HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'z'.repeat(200)}`;
          let at = 0;
          timers.push(setInterval(() => at < request.length && socket.write(request[at++]!), 50));
          slow.push(socket);
        }
        // Readers that never read: big answers pile up in their sockets.
        for (let index = 0; index < 20; index += 1) {
          const socket = net.connect(service.port, '127.0.0.1', () => {
            for (let n = 0; n < 50; n += 1) socket.write(`GET ${DEV_CODE}&v=${n} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
          });
          socket.on('error', () => {});
          socket.pause();
          slow.push(socket);
        }
        // Meanwhile everyone else is answered, in full.
        const answers = await Promise.all(Array.from({ length: 60 }, (_, n) => service.get(n % 3 === 0 ? '/state' : n % 3 === 1 ? DEV_CODE : ASSET)));
        for (const answer of answers) expect(answer.status).to.equal(200);
        expect(slow.every((socket) => !socket.destroyed), 'the slow clients are still connected while others were served').to.equal(true);
      } finally {
        for (const timer of timers) clearInterval(timer);
        for (const socket of slow) socket.destroy();
      }
    });

  });
});
