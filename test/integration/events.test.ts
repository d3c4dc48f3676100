// The push channel `/events` (README "Preview and stylesheet push", SECURITY.md) with a real WebSocket client: which origins
// may listen, and the `styles`, `invalid`, `valid`, `code` and `asset` messages that follow edits on disk.
import { expect } from 'chai';
import WebSocket from 'ws';
import { edit, write } from '../helpers/edit.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';

type Served = Awaited<ReturnType<typeof serve>>;

interface Message {
  type: 'hello' | 'styles' | 'invalid' | 'code' | 'valid' | 'asset';
  /** Absent from `hello`, which names the run of the service instead. */
  module?: string;
  instance?: string;
  /** `hello`'s: the sequence number of the state when the connection opened. */
  seq?: number;
  href?: string;
  diagnostics?: { kind: string; message: string; file?: string }[];
}

interface Listener {
  socket: WebSocket;
  messages: Message[];
  /** The first message after those already taken that matches. */
  next(match: (message: Message) => boolean): Promise<Message>;
}

const sockets = new Set<WebSocket>();

/** Opens `/events`; resolves once open, or rejects with the HTTP status of a refused upgrade. */
function connect(service: Served, headers: Record<string, string> = {}, path = '/events'): Promise<Listener> {
  const url = service.url.replace(/^http/, 'ws').replace(/\/$/, path);
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    sockets.add(socket);
    const messages: Message[] = [];
    let taken = 0;
    socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Message));
    socket.once('unexpected-response', (_request, response) => reject(Object.assign(new Error(`upgrade refused with ${response.statusCode}`), { status: response.statusCode })));
    socket.once('error', reject);
    socket.once('open', () =>
      resolve({
        socket,
        messages,
        next: (match) =>
          waitFor(
            () => {
              for (let index = taken; index < messages.length; index += 1) {
                if (match(messages[index]!)) {
                  taken = index + 1;
                  return messages[index]!;
                }
              }
              return undefined;
            },
            { what: 'a matching /events message' },
          ),
      }),
    );
  });
}

async function refusal(service: Served, headers: Record<string, string>, path = '/events'): Promise<number> {
  try {
    await connect(service, headers, path);
  } catch (error) {
    return (error as { status?: number }).status ?? -1;
  }
  throw new Error(`the upgrade with ${JSON.stringify(headers)} was accepted`);
}

const MAIN = '@acme/app@1.0.0/main';

describe('the push channel /events', function () {
  let service: Served;
  let root: string;

  before(async function () {
    root = fixtureWorkspace('basic');
    service = await serve(root);
  });
  afterEach(function () {
    for (const socket of sockets) socket.terminate();
    sockets.clear();
  });
  after(async function () {
    await service?.close();
  });

  describe('who may listen', function () {
    it('accepts an upgrade without Origin (a tool)', async function () {
      const listener = await connect(service);
      expect(listener.socket.readyState).to.equal(WebSocket.OPEN);
    });

    it("accepts the service's own origin", async function () {
      const own = new URL(service.url).origin;
      const listener = await connect(service, { origin: own });
      expect(listener.socket.readyState).to.equal(WebSocket.OPEN);
      const viaLocalhost = await connect(service, { origin: `http://localhost:${service.port}`, host: `localhost:${service.port}` });
      expect(viaLocalhost.socket.readyState).to.equal(WebSocket.OPEN);
    });

    it('refuses another origin', async function () {
      expect(await refusal(service, { origin: 'https://evil.test' })).to.equal(403);
      expect(await refusal(service, { origin: `http://evil.test:${service.port}` })).to.equal(403);
      expect(await refusal(service, { origin: `https://127.0.0.1:${service.port}` }), 'another scheme is another origin').to.equal(403);
      expect(await refusal(service, { origin: `http://127.0.0.1:${service.port + 1}` }), 'another port is another origin').to.equal(403);
    });

    it('refuses a malformed origin', async function () {
      for (const origin of ['null', 'not a url', 'http://', `http://127.0.0.1:${service.port}:1`, 'javascript:alert(1)']) {
        expect(await refusal(service, { origin }), origin).to.equal(403);
      }
    });

    it('refuses a Host that is not allowed, and paths that are no channel', async function () {
      expect(await refusal(service, { host: 'evil.test' })).to.equal(403);
      expect(await refusal(service, {}, '/nothing')).to.equal(404);
    });

    it('keeps serving HTTP while sockets come and go', async function () {
      for (let round = 0; round < 5; round += 1) (await connect(service)).socket.terminate();
      expect((await service.get('/state')).status).to.equal(200);
    });
  });

  describe('messages', function () {
    it("greets each connection first with the run of the service, the one the preview page names, and a restart with another", async function () {
      const runOfPage = async (of: Served) => {
        const page = (await of.get('/preview/', { accept: 'text/html' })).text;
        return (JSON.parse(/<script type="application\/json" id="core-page">(.*?)<\/script>/s.exec(page)![1]!) as { instance: string; seq: number });
      };
      const first = await connect(service);
      await waitFor(() => first.messages.length > 0, { what: 'the first message' });
      const hello = first.messages[0]!;
      expect(hello).to.have.keys(['type', 'instance', 'seq']);
      expect(hello.type).to.equal('hello');
      // The page names the run and the state it was written from; nothing changed since the hello.
      const written = await runOfPage(service);
      expect(hello.instance).to.be.a('string').and.equal(written.instance);
      expect(hello.seq).to.be.a('number').and.equal(written.seq);
      const again = await connect(service);
      await waitFor(() => again.messages.length > 0, { what: 'the first message of a second connection' });
      expect(again.messages[0]).to.deep.equal(hello);
      // Another run (a service started again) is another instance.
      const other = await serve(fixtureWorkspace('basic'));
      try {
        const otherRun = (await runOfPage(other)).instance;
        expect(otherRun).to.be.a('string').and.not.equal(hello.instance);
        const heard = await connect(other);
        await waitFor(() => heard.messages.length > 0, { what: "the other run's first message" });
        expect(heard.messages[0]).to.include({ type: 'hello', instance: otherRun });
      } finally {
        await other.close();
      }
    });

    it('announces a stylesheet edited before the file watcher was ready', async function () {
      // A service of its own, edited as soon as it answers: its watcher is still walking the tree.
      const fresh = fixtureWorkspace('basic');
      const early = await serve(fresh);
      try {
        await early.get('/state');
        const listener = await connect(early);
        edit(fresh, 'packages/app/main/styles.css', (text) => text.replace('rgb(1, 2, 3)', 'rgb(11, 12, 13)'));
        const message = await listener.next((m) => m.type === 'styles' && m.module === MAIN);
        expect((await early.get(message.href!)).text).to.include('rgb(11, 12, 13)');
      } finally {
        await early.close();
      }
    });

    it('announces a rebuilt stylesheet with an href that serves the new sheet', async function () {
      const listener = await connect(service);
      const before = edit(root, 'packages/app/main/styles.css', (text) => text.replace('rgb(1, 2, 3)', 'rgb(4, 5, 6)'));
      try {
        const message = await listener.next((m) => m.type === 'styles' && m.module === MAIN);
        expect(message.href).to.match(/^\/m\/@acme\/app@1\.0\.0\/styles\/main\?/);
        const sheet = await service.get(message.href!);
        expect(sheet.status).to.equal(200);
        expect(sheet.headers['content-type']).to.match(/^text\/css/);
        expect(sheet.text).to.include('rgb(4, 5, 6)');
        expect(sheet.text).not.to.include('rgb(1, 2, 3)');

        edit(root, 'packages/app/main/styles.css', (text) => text.replace('rgb(4, 5, 6)', 'rgb(7, 8, 9)'));
        const second = await listener.next((m) => m.type === 'styles' && m.module === MAIN);
        expect(second.href, 'a fresh token per content').to.not.equal(message.href);
        expect((await service.get(second.href!)).text).to.include('rgb(7, 8, 9)');
      } finally {
        write(root, 'packages/app/main/styles.css', before);
      }
      await listener.next((m) => m.type === 'styles' && m.module === MAIN);
    });

    it('announces a build that became invalid with its diagnostics, then the recovered sheet', async function () {
      const listener = await connect(service);
      const before = edit(root, 'packages/app/main/styles.css', (text) => `@import "./missing.css";\n${text}`);
      try {
        const invalid = await listener.next((m) => m.module === MAIN);
        expect(invalid.type).to.equal('invalid');
        expect(invalid.diagnostics).to.be.an('array').that.is.not.empty;
        expect(invalid.diagnostics![0]).to.include({ kind: 'BUNDLE_ERROR', file: 'packages/app/main/styles.css' });
        expect(invalid.diagnostics![0]!.message).to.include('missing.css');
      } finally {
        write(root, 'packages/app/main/styles.css', before.replace('rgb(1, 2, 3)', 'rgb(1, 2, 4)'));
      }
      const valid = await listener.next((m) => m.module === MAIN && m.type !== 'code');
      expect(valid, 'the page is told the module builds again').to.deep.equal({ type: 'valid', module: MAIN });
      const recovered = await listener.next((m) => m.module === MAIN && m.type !== 'code');
      expect(recovered.type).to.equal('styles');
      expect((await service.get(recovered.href!)).text).to.include('rgb(1, 2, 4)');
      write(root, 'packages/app/main/styles.css', before);
      await listener.next((m) => m.type === 'styles' && m.module === MAIN);
    });

    it('announces a code change as `code`, with no stylesheet swap', async function () {
      const listener = await connect(service);
      const before = edit(root, 'packages/app/main/helper.ts', (text) => text.replace('APP_HELPER_MARKER', 'APP_HELPER_CHANGED'));
      try {
        const message = await listener.next((m) => m.module === MAIN);
        expect(message).to.deep.equal({ type: 'code', module: MAIN });
      } finally {
        write(root, 'packages/app/main/helper.ts', before);
      }
      const back = await listener.next((m) => m.module === MAIN);
      expect(back).to.deep.equal({ type: 'code', module: MAIN });
    });

    it('announces a declared asset saved with new content as `asset` at its plain address, after the code its version changed; the same bytes again tell nothing', async function () {
      const listener = await connect(service);
      const href = '/m/@acme/app@1.0.0/assets/main/logo.svg';
      const before = edit(root, 'packages/app/main/logo.svg', (text) => text.replace('</svg>', '<title>edited</title></svg>'));
      try {
        // The code imports it (its address carries the version): `code`, then the asset's own message.
        expect(await listener.next((m) => m.module === MAIN)).to.deep.equal({ type: 'code', module: MAIN });
        expect(await listener.next((m) => m.module === MAIN)).to.deep.equal({ type: 'asset', module: MAIN, href });
        expect((await service.get(href)).text).to.include('<title>edited</title>');
      } finally {
        write(root, 'packages/app/main/logo.svg', before);
      }
      expect(await listener.next((m) => m.module === MAIN)).to.deep.equal({ type: 'code', module: MAIN });
      expect(await listener.next((m) => m.module === MAIN)).to.deep.equal({ type: 'asset', module: MAIN, href });
      // The same bytes saved again, then a stylesheet edit: the sheet's message is the next one heard.
      write(root, 'packages/app/main/logo.svg', before);
      const sheet = edit(root, 'packages/app/main/styles.css', (text) => text.replace('rgb(1, 2, 3)', 'rgb(3, 2, 1)'));
      try {
        expect((await listener.next((m) => m.module === MAIN)).type).to.equal('styles');
      } finally {
        write(root, 'packages/app/main/styles.css', sheet);
      }
      expect((await listener.next((m) => m.module === MAIN)).type).to.equal('styles');
    });

    it('names modules of every package as <package>@<version>/<subpath>', async function () {
      const listener = await connect(service);
      const before = edit(root, 'packages/lib/widgets/badge/index.ts', (text) => `${text}\nexport const BADGE_EDIT = 1;\n`);
      try {
        expect(await listener.next((m) => m.module?.startsWith('@acme/lib') === true)).to.deep.equal({ type: 'code', module: '@acme/lib@1.2.0/widgets/badge' });
      } finally {
        write(root, 'packages/lib/widgets/badge/index.ts', before);
      }
      await listener.next((m) => m.module === '@acme/lib@1.2.0/widgets/badge');
    });

    it('ignores what a client sends, and keeps pushing', async function () {
      const listener = await connect(service);
      listener.socket.send(JSON.stringify({ type: 'styles', module: MAIN, href: 'https://evil.test/x.css' }));
      listener.socket.send('not json');
      const before = edit(root, 'packages/app/main/styles.css', (text) => text.replace('rgb(1, 2, 3)', 'rgb(5, 5, 5)'));
      try {
        const message = await listener.next((m) => m.type === 'styles' && m.module === MAIN);
        expect(message.href).to.match(/^\/m\//);
        expect(listener.messages.some((m) => m.href === 'https://evil.test/x.css')).to.equal(false);
        expect(listener.socket.readyState).to.equal(WebSocket.OPEN);
      } finally {
        write(root, 'packages/app/main/styles.css', before);
      }
      await listener.next((m) => m.type === 'styles' && m.module === MAIN);
    });
  });
});
