// `/state` (README "Addresses"), its Server-Sent Events form, and `/log` (README "The event log, replay and state subscription"), against a
// real server whose workspace is edited on disk.
import { expect } from 'chai';
import { edit } from '../helpers/edit.js';
import { openEventStream, type EventStream } from '../helpers/event-stream.js';
import { expectError } from '../helpers/answers.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import type { Report } from '../../src/store/selectors.js';

type Served = Awaited<ReturnType<typeof serve>>;

interface LoggedEvent {
  seq: number;
  time: string;
  type: string;
  [member: string]: unknown;
}

const parseNdjson = (text: string): LoggedEvent[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LoggedEvent);

const statusOf = (report: Report, specifier: string) => report.modules.find((m) => m.specifier === specifier)?.status;

describe('/state and /log', function () {
  let service: Served;
  let root: string;

  before(async function () {
    root = fixtureWorkspace('basic');
    service = await serve(root);
  });
  after(async function () {
    await service?.close();
  });

  describe('GET /state', function () {
    it('reports every public module of the workspace, each valid with its identity', async function () {
      const answer = await service.get('/state');
      expect(answer.status).to.equal(200);
      expect(answer.headers['content-type']).to.match(/^application\/json/);
      const report = answer.json<Report>();
      expect(report.diagnostics).to.deep.equal([]);
      expect(report.modules.map((m) => m.specifier)).to.have.members(['@acme/app/main', '@acme/app/templates', '@acme/lib/format', '@acme/lib/server', '@acme/lib/widgets/badge']);
      expect(report.modules.find((m) => m.specifier === '@acme/app/main')).to.deep.equal({
        specifier: '@acme/app/main',
        package: '@acme/app',
        version: '1.0.0',
        subpath: 'main',
        platforms: ['web'],
        bundler: 'esbuild',
        status: 'valid',
        diagnostics: [],
      });
      expect(report.modules.find((m) => m.specifier === '@acme/lib/server')).to.include({ bundler: 'ts', status: 'valid' }).and.to.have.deep.property('platforms', ['node']);
      expect(report.modules.find((m) => m.specifier === '@acme/lib/widgets/badge')).to.include({ subpath: 'widgets/badge', version: '1.2.0' });
    });

    it('reports the workspace as it is on disk when asked, never older', async function () {
      const before = edit(root, 'packages/lib/format/index.ts', (text) => `${text}\nexport const broken = ;\n`);
      try {
        const broken = (await service.get('/state')).json<Report>();
        const format = broken.modules.find((m) => m.specifier === '@acme/lib/format')!;
        expect(format.status).to.equal('invalid');
        expect(format.diagnostics[0]).to.include({ kind: 'BUNDLE_ERROR', file: 'packages/lib/format/index.ts' });
      } finally {
        edit(root, 'packages/lib/format/index.ts', () => before);
      }
      expect(statusOf((await service.get('/state')).json<Report>(), '@acme/lib/format')).to.equal('valid');
    });
  });

  describe('GET /state as Server-Sent Events', function () {
    let stream: EventStream | undefined;
    afterEach(function () {
      stream?.close();
    });

    it('sends the current report first as `event: state`, then another after an edit', async function () {
      const current = (await service.get('/state')).json<Report>();
      stream = await openEventStream(service.url, '/state');
      expect(stream.status).to.equal(200);
      expect(stream.headers['content-type']).to.match(/^text\/event-stream/);
      const first = await stream.next();
      expect(first.event).to.equal('state');
      expect(JSON.parse(first.data)).to.deep.equal(current);

      const before = edit(root, 'packages/app/main/helper.ts', (text) => text.replace("'APP_HELPER_MARKER'", "'APP_HELPER_MARKER' +"));
      try {
        const broken = await stream.next((event) => statusOf(JSON.parse(event.data), '@acme/app/main') === 'invalid');
        expect(broken.event).to.equal('state');
        const report = JSON.parse(broken.data) as Report;
        expect(report.modules.find((m) => m.specifier === '@acme/app/main')!.diagnostics[0]).to.include({ kind: 'BUNDLE_ERROR', file: 'packages/app/main/helper.ts' });
      } finally {
        edit(root, 'packages/app/main/helper.ts', () => before);
      }
      const fixed = await stream.next((event) => statusOf(JSON.parse(event.data), '@acme/app/main') === 'valid');
      expect(fixed.event).to.equal('state');
      expect(JSON.parse(fixed.data)).to.deep.equal((await service.get('/state')).json());
    });

    it('answers plain JSON to a client that does not ask for the event stream', async function () {
      const answer = await service.get('/state', { accept: 'application/json' });
      expect(answer.headers['content-type']).to.match(/^application\/json/);
      expect(answer.json<Report>().modules.length).to.equal(5);
    });
  });

  describe('GET /log', function () {
    it('answers the events kept in memory as NDJSON, in order, from service.started on', async function () {
      const answer = await service.get('/log');
      expect(answer.status).to.equal(200);
      expect(answer.headers['content-type']).to.match(/^application\/x-ndjson/);
      expect(answer.text.endsWith('\n')).to.equal(true);
      const events = parseNdjson(answer.text);
      expect(events[0]).to.include({ seq: 1, type: 'service.started' });
      events.forEach((event, index) => {
        expect(event.seq).to.equal(index + 1);
        expect(new Date(event.time).toISOString()).to.equal(event.time);
      });
      expect(events.map((e) => e.type)).to.include.members(['workspace.read', 'build.started', 'build.succeeded']);
    });

    it('carries outputs by content hash, never their content', async function () {
      const events = parseNdjson((await service.get('/log')).text);
      const built = events.find((e) => e.type === 'build.succeeded' && e.module === '@acme/app/main') as LoggedEvent & { outputs: { code: { hash: string; size: number } } };
      expect(built.outputs.code.hash).to.be.a('string').that.is.not.empty;
      expect(built.outputs.code.size).to.be.above(0);
      const text = (await service.get('/log')).text;
      expect(text).not.to.include('APP_HELPER_MARKER');
      expect(text).not.to.include('rgb(1, 2, 3)');
    });

    it('answers only the newer events with ?since=SEQ', async function () {
      const all = parseNdjson((await service.get('/log')).text);
      const middle = all[Math.floor(all.length / 2)]!.seq;
      const newer = parseNdjson((await service.get(`/log?since=${middle}`)).text);
      expect(newer.map((e) => e.seq)).to.deep.equal(all.filter((e) => e.seq > middle).map((e) => e.seq).slice(0, newer.length));
      expect(newer.every((e) => e.seq > middle)).to.equal(true);
      const last = all[all.length - 1]!.seq;
      const none = await service.get(`/log?since=${last + 1000}`);
      expect(none.status).to.equal(200);
      expect(none.text).to.equal('');
    });

    it('records the edits it was told about as files.changed and new builds', async function () {
      const last = parseNdjson((await service.get('/log')).text).at(-1)!.seq;
      const before = edit(root, 'packages/app/main/styles.css', (text) => text.replace('rgb(1, 2, 3)', 'rgb(7, 8, 9)'));
      try {
        expect((await service.get('/state')).status).to.equal(200);
        const newer = parseNdjson((await service.get(`/log?since=${last}`)).text);
        const changes = newer.filter((e) => e.type === 'files.changed') as (LoggedEvent & { files: Record<string, string | null> })[];
        const changed = changes.find((e) => 'packages/app/main/styles.css' in e.files);
        expect(changed, JSON.stringify(changes)).to.not.equal(undefined);
        expect(changed!.files['packages/app/main/styles.css']).to.be.a('string');
        expect(changed!.source).to.be.oneOf(['watcher', 'check']);
        expect(newer.some((e) => e.type === 'build.succeeded' && e.module === '@acme/app/main')).to.equal(true);
      } finally {
        edit(root, 'packages/app/main/styles.css', () => before);
      }
    });

    it('refuses a since that is not an event seq', async function () {
      expectError(await service.get('/log?since=yesterday'), { status: 400, code: 'OPTION_UNSUPPORTED', mentions: ['since'] });
    });
  });
});
