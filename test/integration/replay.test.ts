// Replay exactness (README "The event log, replay and state subscription"): for any recorded session, replaying up to the last event
// yields the report the live /state answered. A live service records every event while it
// goes through edits, breaks and fixes of code, stylesheets and manifests; after each step
// the replayed report must deep-equal the live one, and so must every earlier prefix.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { edit, editJson, readText, remove, write } from '../helpers/edit.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { lastSession, parseLog, replay } from '../../src/store/replay.js';
import { selectReport, type Report } from '../../src/store/selectors.js';
import type { CoreEvent } from '../../src/store/events.js';

type Served = Awaited<ReturnType<typeof serve>>;

const readEvents = (file: string): CoreEvent[] => {
  const parsed = parseLog(fs.readFileSync(file, 'utf8'), file);
  expect(parsed.warnings).to.deep.equal([]);
  return parsed.events;
};

const replayed = (file: string, until?: number): Report => selectReport(replay(lastSession(readEvents(file), until)));

describe('replaying a recorded session', function () {
  let root: string;
  let record: string;
  let service: Served;
  // Every live /state answer and the last event recorded when it came.
  const answered: { step: string; seq: number; report: Report }[] = [];

  /** Asks the live /state, and checks the replay of the recording against it. */
  async function step(name: string): Promise<Report> {
    const answer = await service.get('/state');
    expect(answer.status, name).to.equal(200);
    const live = answer.json<Report>();
    const events = lastSession(readEvents(record));
    const seq = events.at(-1)!.seq;
    expect(selectReport(replay(events)), `the replay after "${name}"`).to.deep.equal(live);
    answered.push({ step: name, seq, report: live });
    return live;
  }

  const statusOf = (report: Report, specifier: string) => report.modules.find((m) => m.specifier === specifier)?.status;

  before(async function () {
    root = fixtureWorkspace('basic');
    record = path.join(tempWorkspace(), 'logs', 'session.ndjson');
    service = await serve(root, { record });
  });
  after(async function () {
    await service?.close();
  });

  it('yields the live report at start', async function () {
    const live = await step('start');
    expect(live.modules).to.have.lengthOf(5);
    expect(live.modules.every((m) => m.status === 'valid')).to.equal(true);
  });

  it('yields the live report through code edits, a syntax error and its fix', async function () {
    const helper = readText(root, 'packages/app/main/helper.ts');
    edit(root, 'packages/app/main/helper.ts', (text) => text.replace('APP_HELPER_MARKER', 'APP_HELPER_MARKER_2'));
    await step('code edited');
    write(root, 'packages/app/main/helper.ts', `${helper}\nexport const = ;\n`);
    expect(statusOf(await step('code broken'), '@acme/app/main')).to.equal('invalid');
    write(root, 'packages/app/main/helper.ts', helper);
    expect(statusOf(await step('code fixed'), '@acme/app/main')).to.equal('valid');
  });

  it('yields the live report through a stylesheet importing a missing file and its fix', async function () {
    const styles = edit(root, 'packages/app/main/styles.css', (text) => `@import "./missing.css";\n${text}`);
    const broken = await step('stylesheet broken');
    expect(broken.modules.find((m) => m.specifier === '@acme/app/main')!.diagnostics[0]).to.include({ kind: 'BUNDLE_ERROR', file: 'packages/app/main/styles.css' });
    write(root, 'packages/app/main/styles.css', styles.replace('rgb(1, 2, 3)', 'rgb(3, 3, 3)'));
    expect(statusOf(await step('stylesheet fixed'), '@acme/app/main')).to.equal('valid');
  });

  it('yields the live report through a broken module.json, a wrong dependency range and their fixes', async function () {
    const manifest = readText(root, 'packages/lib/widgets/badge/module.json');
    write(root, 'packages/lib/widgets/badge/module.json', '{"platforms": ["web"], "entry": "index.ts",, }');
    expect(statusOf(await step('module.json broken'), '@acme/lib/widgets/badge')).to.equal('invalid');
    write(root, 'packages/lib/widgets/badge/module.json', manifest);
    expect(statusOf(await step('module.json fixed'), '@acme/lib/widgets/badge')).to.equal('valid');

    const app = editJson(root, 'packages/app/package.json', (json) => (json.dependencies['@acme/lib'] = '^9.0.0'));
    const incompatible = await step('range broken');
    expect(incompatible.modules.find((m) => m.specifier === '@acme/app/main')!.diagnostics.map((d) => d.kind)).to.deep.equal(['DEPENDENCY_INCOMPATIBLE']);
    write(root, 'packages/app/package.json', app);
    await step('range fixed');
  });

  it('yields the live report through a broken package.json, a version change and a new module', async function () {
    const lib = readText(root, 'packages/lib/package.json');
    write(root, 'packages/lib/package.json', '{"name": "@acme/lib",');
    expect((await step('package.json broken')).diagnostics).to.have.lengthOf(1);
    write(root, 'packages/lib/package.json', lib.replace('"1.2.0"', '"1.3.0"'));
    expect((await step('version changed')).modules.find((m) => m.specifier === '@acme/lib/format')!.version).to.equal('1.3.0');
    write(root, 'packages/lib/widgets/chip/index.ts', 'export const chip = 1;\n');
    write(root, 'packages/lib/widgets/chip/module.json', '{"entry": "index.ts"}');
    expect(statusOf(await step('module added'), '@acme/lib/widgets/chip')).to.equal('valid');
    remove(root, 'packages/lib/widgets/chip');
    expect(statusOf(await step('module removed'), '@acme/lib/widgets/chip')).to.equal(undefined);
    write(root, 'packages/lib/package.json', lib);
    await step('version restored');
  });

  it('yields, up to the seq of each earlier answer, the report answered then', async function () {
    expect(answered.length).to.be.at.least(10);
    for (const { step: name, seq, report } of answered) {
      expect(replayed(record, seq), `replay --until ${seq} (${name})`).to.deep.equal(report);
    }
    // The steps changed the report: the comparison above is not one report compared with itself.
    const distinct = new Set(answered.map((a) => JSON.stringify(a.report)));
    expect(distinct.size).to.be.at.least(6);
  });

  it('replays the last session of a file that holds several', async function () {
    await service.close();
    editJson(root, 'packages/app/package.json', (json) => (json.version = '2.0.0'));
    const second = await serve(root, { record });
    try {
      const live = (await second.get('/state')).json<Report>();
      expect(live.modules.find((m) => m.specifier === '@acme/app/main')!.version).to.equal('2.0.0');
      const events = readEvents(record);
      expect(events.filter((e) => e.type === 'service.started')).to.have.lengthOf(2);
      expect(events.some((e) => e.type === 'service.stopped')).to.equal(true);
      expect(replayed(record)).to.deep.equal(live);
    } finally {
      await second.close();
    }
  });
});
