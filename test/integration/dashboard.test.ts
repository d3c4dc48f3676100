// The dashboard's addresses: `/` for browsers only, its files, `/state/details`, and `/log`
// as an event stream; all behind the Host guard, none with CORS headers.
import { expect } from 'chai';
import { edit } from '../helpers/edit.js';
import { openEventStream } from '../helpers/event-stream.js';
import { BAD_IMPORT, BROKEN_FILE, BROKEN_MODULE } from '../helpers/recorded-session.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace } from '../helpers/workspace.js';
import type { Details } from '../../src/dashboard/details.js';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('the dashboard addresses', function () {
  let root: string;
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    root = exampleWorkspace();
    service = await serve(root);
  });
  after(() => service?.close());

  it('answers GET / from a browser with the page, under a Content-Security-Policy of its own origin', async function () {
    const answer = await service.get('/', HTML);
    expect(answer.status).to.equal(200);
    expect(answer.headers['content-type']).to.match(/^text\/html/);
    expect(answer.headers['content-security-policy']).to.match(/^default-src 'self'/);
    expect(answer.headers['access-control-allow-origin']).to.equal(undefined);
    expect(answer.text).to.include('<core-dashboard data-preview="/preview/">');
    const script = /src="(\/dashboard\/dashboard\.js\?v=[^"]+)"/.exec(answer.text)?.[1];
    const style = /href="(\/dashboard\/dashboard\.css\?v=[^"]+)"/.exec(answer.text)?.[1];
    expect(script, 'the page names its script').to.be.a('string');
    const js = await service.get(script!);
    expect(js.status).to.equal(200);
    expect(js.headers['content-type']).to.match(/^text\/javascript/);
    expect(js.headers['access-control-allow-origin']).to.equal(undefined);
    expect((await service.get(style!)).headers['content-type']).to.match(/^text\/css/);
  });

  it('keeps OUTPUT_NOT_AVAILABLE for JSON, event-stream and Accept-less clients of /', async function () {
    for (const headers of [{} as Record<string, string>, { accept: 'application/json' }, { accept: 'text/event-stream' }, { accept: '*/*' }]) {
      const answer = await service.get('/', headers);
      expect(answer.status, JSON.stringify(headers)).to.equal(404);
      expect(answer.json().code).to.equal('OUTPUT_NOT_AVAILABLE');
    }
    expect((await service.get('/dashboard/other.js')).json().code).to.equal('OUTPUT_NOT_AVAILABLE');
  });

  it('refuses every dashboard address to a foreign Host', async function () {
    for (const path of ['/', '/dashboard/dashboard.js', '/state/details']) {
      const answer = await service.get(path, { ...HTML, host: 'attacker.example' });
      expect(answer.status, path).to.equal(403);
      expect(answer.json().code).to.equal('HOST_NOT_ALLOWED');
    }
  });

  it('serves /state/details: outputs, last build, imports and importers of each module, the selection and the CDN', async function () {
    const answer = await service.get('/state/details');
    expect(answer.status).to.equal(200);
    expect(answer.headers['access-control-allow-origin']).to.equal(undefined);
    const details = answer.json<Details>();
    const state = (await service.get('/state')).json<{ modules: { specifier: string }[] }>();
    expect(details.modules.map((m) => m.specifier)).to.deep.equal(state.modules.map((m) => m.specifier));
    expect(details.cdnOrigin).to.equal('https://cdn.test');
    expect(details.selection).to.equal(null);
    const storefront = details.modules.find((m) => m.specifier === BROKEN_MODULE)!;
    expect(storefront.code!.address).to.equal('/m/@demo/shop@0.4.0/modules/storefront');
    expect((await service.get(storefront.code!.address)).headers.etag).to.equal(`"${storefront.code!.hash}"`);
    expect(storefront.lastBuild).to.include({ outcome: 'succeeded' });
    expect(storefront.lastBuild!.duration).to.be.a('number');
    const imported = storefront.imports.map((record) => record.specifier).filter((specifier) => details.modules.some((m) => m.specifier === specifier));
    expect(imported, 'the storefront imports workspace modules').to.not.be.empty;
    for (const specifier of imported) expect(details.modules.find((m) => m.specifier === specifier)!.importers).to.include(BROKEN_MODULE);
    expect(details.builds.length).to.be.greaterThan(0);
  });

  it('gives a code frame for a diagnostic whose line is known', async function () {
    edit(root, BROKEN_FILE, (text) => text + BAD_IMPORT);
    try {
      const details = (await service.get('/state/details')).json<Details>();
      const frames = Object.entries(details.frames ?? {});
      expect(frames.length).to.equal(1);
      expect(frames[0]![0]).to.match(new RegExp(`^${BROKEN_FILE}:\\d+$`));
      expect(frames[0]![1]).to.include("> ").and.include("import './no-such-file.js'");
      expect(details.modules.find((m) => m.specifier === BROKEN_MODULE)!.lastBuild).to.include({ reason: 'change', outcome: 'failed', incremental: true });
    } finally {
      edit(root, BROKEN_FILE, (text) => text.replace(BAD_IMPORT, ''));
      await service.get('/state');
    }
  });

  it('streams /log as Server-Sent Events: the kept events, then each new one', async function () {
    const kept = (await service.get('/log')).text.trim().split('\n').map((line) => JSON.parse(line));
    const stream = await openEventStream(service.url, '/log');
    try {
      expect(stream.status).to.equal(200);
      expect(stream.headers['content-type']).to.match(/^text\/event-stream/);
      const first = await stream.next((event) => event.event === 'log');
      expect(JSON.parse(first.data)).to.deep.equal(kept[0]);
      edit(root, BROKEN_FILE, (text) => `${text}\n`);
      const last = kept.at(-1).seq;
      await stream.next((event) => event.event === 'log' && JSON.parse(event.data).seq === last);
      await stream.next((event) => event.event === 'log' && JSON.parse(event.data).type === 'build.started' && JSON.parse(event.data).seq > last);
      const seqs = stream.events.map((event) => JSON.parse(event.data).seq);
      expect(seqs, 'each event once, in order').to.deep.equal([...seqs].sort((a, b) => a - b).filter((seq, index, all) => all.indexOf(seq) === index));
    } finally {
      stream.close();
    }
  });
});
