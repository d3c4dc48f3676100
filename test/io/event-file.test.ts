// The file `core run --record` appends to (README "The event log, replay and state
// subscription"): a new file or an event log, never someone's file the watcher would see grow.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { openEventFile, recordFileProblem } from '../../src/io/event-file.js';
import { runCore } from '../helpers/cli.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { serve, stopAll } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import type { CoreEvent } from '../../src/store/events.js';

describe('recordFileProblem', () => {
  it('takes a new file, an empty one and an event log', () => {
    const dir = tempWorkspace({ 'empty.ndjson': '', 'log.ndjson': '{"type":"service.started","format":2,"seq":1}\n{"type":"workspace.read"}\n' });
    expect(recordFileProblem(path.join(dir, 'new.ndjson'))).to.equal(null);
    expect(recordFileProblem(path.join(dir, 'empty.ndjson'))).to.equal(null);
    expect(recordFileProblem(path.join(dir, 'log.ndjson'))).to.equal(null);
    const log = openEventFile(path.join(dir, 'log.ndjson'));
    log.append('{"type":"x"}\n');
    log.close();
    expect(fs.readFileSync(path.join(dir, 'log.ndjson'), 'utf8').split('\n')).to.have.length(4);
  });

  it('refuses a source, a manifest, JSON of another shape and a directory, and openEventFile writes nothing to them', () => {
    const files = { 'util.ts': 'export const a = 1;\n', 'core.json': '{"packages":["packages/lib"]}\n', 'other.ndjson': '{"type":"something"}\n' };
    const dir = tempWorkspace(files);
    for (const [name, content] of Object.entries(files)) {
      const file = path.join(dir, name);
      expect(recordFileProblem(file), name).to.equal(`${file} holds something else than an event log (its first line is no service.started event): events are appended only to a new file or an event log`);
      expect(() => openEventFile(file), name).to.throw(`the event log is not written: ${file} holds something else`);
      expect(fs.readFileSync(file, 'utf8'), name).to.equal(content);
    }
    expect(recordFileProblem(dir)).to.equal(`${dir} is a directory`);
  });

  it("inside the workspace, takes a new or empty file only when named as a log: an empty module or sheet a build reads would grow with every event", () => {
    const root = tempWorkspace({ 'packages/lib/util/empty.ts': '', 'packages/lib/util/empty.css': '', 'events.ndjson': '' });
    for (const name of ['packages/lib/util/empty.ts', 'packages/lib/util/empty.css', 'packages/lib/util/new.ts', 'notes.txt']) {
      const file = path.join(root, name);
      expect(recordFileProblem(file, root), name).to.equal(`${file} is inside the workspace and not named as a log (.ndjson, .jsonl or .log): a module may read it (an empty module or sheet, or one imported once it exists)`);
    }
    expect(() => openEventFile(path.join(root, 'packages/lib/util/empty.ts'), root)).to.throw('the event log is not written');
    expect(fs.readFileSync(path.join(root, 'packages/lib/util/empty.ts'), 'utf8')).to.equal('');
    for (const name of ['events.ndjson', 'logs/new.jsonl', 'run.log']) expect(recordFileProblem(path.join(root, name), root), name).to.equal(null);
    const outside = tempWorkspace({ 'empty.ts': '' });
    expect(recordFileProblem(path.join(outside, 'empty.ts'), root)).to.equal(null);
  });

  it('makes core run refuse --record naming a file of the workspace, wrong usage (exit 2), the file untouched', async () => {
    const root = fixtureWorkspace('basic');
    const before = fs.readFileSync(path.join(root, 'core.json'), 'utf8');
    const run = await runCore(['run', '--port', '0', '--record', 'core.json'], { cwd: root });
    expect(run.code).to.equal(2);
    expect(run.stderr).to.include(`--record: ${path.join(root, 'core.json')} holds something else than an event log`);
    expect(fs.readFileSync(path.join(root, 'core.json'), 'utf8')).to.equal(before);
  });
});

describe('core run --record into a log a module then reads', function () {
  this.timeout(60_000);
  after(stopAll);

  it('stops recording there, with one warning naming the module, rather than build and record without end (the log matched by a glob import)', async () => {
    const source = 'export const load = (name: string) => import(`./logs/${name}`);\n';
    const root = tempWorkspace({
      'core.json': '{"packages":["packages/lib"]}\n',
      'packages/lib/package.json': '{"name":"@p/lib","version":"1.0.0","exports":{"./util":"./util/index.ts"}}\n',
      'packages/lib/util/index.ts': source,
      'packages/lib/util/logs/keep.json': '{}\n',
    });
    // Named as a log, new: taken at start; the glob matches it once it exists.
    const record = path.join(root, 'packages/lib/util/logs/session.jsonl');
    const lines: string[] = [];
    const service = await serve(root, { record, logger: (line) => lines.push(line) });
    const results: CoreEvent[] = [];
    service.events$.subscribe((event) => {
      if (event.type === 'build.succeeded' || event.type === 'build.failed') results.push(event);
    });
    await waitFor(() => lines.some((line) => line.includes('stopped')), { what: 'the line saying recording stopped' });
    const recorded = fs.readFileSync(record, 'utf8');
    const types = recorded.trim().split('\n').map((line) => (JSON.parse(line) as CoreEvent).type);
    expect(types[0]).to.equal('service.started');
    expect(types).not.to.include('build.succeeded');
    expect(types).not.to.include('build.failed');

    // An edit builds the module again; the log it reads is written no more.
    const edited = `${source}export const more = 1;\n`;
    fs.writeFileSync(path.join(root, 'packages/lib/util/index.ts'), edited);
    await waitFor(() => results.some((event) => 'inputs' in event && event.inputs['packages/lib/util/index.ts'] === contentHash(edited)), { what: "the edited module's build" });
    expect(fs.readFileSync(record, 'utf8')).to.equal(recorded);
    expect(lines).to.deep.equal([
      `core: recording into ${record} stopped: @p/lib/util reads it (an input of its build), so each event appended would build it again and record more; record into a file no module reads (outside the workspace, say)`,
    ]);
  });

  // probe52 P7: inputs are named by path, and a hard link is the log under another name.
  it('stops recording into a log a module reads under another name, a hard link to it (inside the workspace or out)', async () => {
    for (const outside of [false, true]) {
      const root = tempWorkspace({
        'core.json': '{"packages":["packages/lib"]}\n',
        'packages/lib/package.json': '{"name":"@p/lib","version":"1.0.0","exports":{"./util":"./util/index.ts"}}\n',
        'packages/lib/util/index.ts': "import text from './ev.txt?raw';\nexport const size = text.length;\n",
      });
      const record = outside ? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'record-outside-')), 'events.ndjson') : path.join(root, 'packages/lib/util/events.ndjson');
      fs.writeFileSync(record, '');
      fs.linkSync(record, path.join(root, 'packages/lib/util/ev.txt'));
      const lines: string[] = [];
      await serve(root, { record, logger: (line) => lines.push(line) });
      await waitFor(() => lines.some((line) => line.includes('stopped')), { what: `the line saying recording stopped (log ${outside ? 'outside' : 'inside'} the workspace)` });
      expect(lines.filter((line) => line.includes('stopped'))).to.deep.equal([
        `core: recording into ${record} stopped: @p/lib/util reads it (an input of its build), so each event appended would build it again and record more; record into a file no module reads (outside the workspace, say)`,
      ]);
      const types = fs.readFileSync(record, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as CoreEvent).type);
      expect(types).not.to.include('build.succeeded');
    }
  });
});
