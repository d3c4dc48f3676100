// `core run --record FILE` and `core replay FILE [--until SEQ] [--trace]` (README "The event log, replay and state subscription"):
// for any recorded session, replaying up to the last event prints the report the live
// /state answered, through edits, breaks and fixes of code, stylesheets and manifests.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { DEVELOPMENT_ENV, killAllCores, runCore, startCore, type RunningCore } from '../helpers/cli.js';
import { edit, readText, write } from '../helpers/edit.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { tempWorkspace } from '../helpers/workspace.js';
import type { Report } from '../../src/store/selectors.js';

const lastSeq = (file: string): number => {
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
  return (JSON.parse(lines[lines.length - 1]!) as { seq: number }).seq;
};

async function replayReport(file: string, cwd: string, ...options: string[]): Promise<Report> {
  const result = await runCore(['replay', file, ...options], { cwd });
  expect(result.code, result.stderr).to.equal(0);
  return JSON.parse(result.stdout) as Report;
}

describe('core replay of a session recorded with core run --record', function () {
  let root: string;
  let record: string;
  let core: RunningCore;
  const answered: { step: string; seq: number; report: Report }[] = [];

  /** The live /state, checked against `core replay` of the recording. */
  async function step(name: string): Promise<Report> {
    const answer = await get(core.url, '/state');
    expect(answer.status, name).to.equal(200);
    const live = answer.json<Report>();
    const seq = lastSeq(record);
    expect(await replayReport(record, root), `core replay after "${name}"`).to.deep.equal(live);
    answered.push({ step: name, seq, report: live });
    return live;
  }

  before(async function () {
    root = fixtureWorkspace('basic');
    record = path.join(tempWorkspace(), 'session.ndjson');
    core = await startCore(['--port', '0', '--record', record], { cwd: root, env: DEVELOPMENT_ENV });
  });
  after(async function () {
    await core?.stop();
    await killAllCores();
  });

  it('prints the live report after every step of edits, breaks and fixes', async function () {
    await step('start');
    const helper = edit(root, 'packages/app/main/helper.ts', (text) => `${text}\nexport const broken = ;\n`);
    expect((await step('code broken')).modules.find((m) => m.specifier === '@acme/app/main')!.status).to.equal('invalid');
    write(root, 'packages/app/main/helper.ts', helper.replace('APP_HELPER_MARKER', 'APP_HELPER_MARKER_2'));
    await step('code fixed');

    const styles = edit(root, 'packages/app/main/styles.css', (text) => `@import "./missing.css";\n${text}`);
    await step('stylesheet broken');
    write(root, 'packages/app/main/styles.css', styles);
    await step('stylesheet fixed');

    const manifest = readText(root, 'packages/lib/widgets/badge/module.json');
    write(root, 'packages/lib/widgets/badge/module.json', '{"platforms": [web]}');
    expect((await step('module.json broken')).modules.find((m) => m.specifier === '@acme/lib/widgets/badge')!.diagnostics[0]!.kind).to.equal('MANIFEST_INVALID');
    write(root, 'packages/lib/widgets/badge/module.json', manifest);
    await step('module.json fixed');

    const distinct = new Set(answered.map((a) => JSON.stringify(a.report)));
    expect(distinct.size, 'the steps changed the report').to.be.at.least(4);
  });

  it('prints, with --until SEQ, the report answered when SEQ was the last event', async function () {
    for (const { step: name, seq, report } of answered) {
      expect(await replayReport(record, root, '--until', String(seq)), `--until ${seq} (${name})`).to.deep.equal(report);
    }
  });

  it('prints, with --trace, each module status change with the event that caused it', async function () {
    const result = await runCore(['replay', record, '--trace'], { cwd: root });
    expect(result.code).to.equal(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.some((line) => /build\.failed\s+@acme\/app\/main\s+valid\s+->\s+invalid/.test(line)), result.stdout).to.equal(true);
    expect(lines.some((line) => /@acme\/lib\/widgets\/badge\s+valid\s+->\s+invalid\s+MANIFEST_INVALID packages\/lib\/widgets\/badge\/module\.json/.test(line)), result.stdout).to.equal(true);
    expect(lines.some((line) => /@acme\/app\/main\s+invalid\s+->\s+valid/.test(line)), result.stdout).to.equal(true);
    expect(result.stdout).not.to.include('\x1b['); // plain when piped
  });

  it('replays a log saved from GET /log the same way', async function () {
    const saved = path.join(tempWorkspace(), 'from-log.ndjson');
    fs.writeFileSync(saved, (await get(core.url, '/log')).text);
    const live = (await get(core.url, '/state')).json<Report>();
    expect(await replayReport(saved, root)).to.deep.equal(live);
  });

  describe('logs it cannot read faithfully', function () {
    it('exits 1 on a file that cannot be read, in one line of its own words', async function () {
      const absent = path.join(tempWorkspace(), 'absent.ndjson');
      const result = await runCore(['replay', absent], { cwd: tempWorkspace() });
      expect(result.code).to.equal(1);
      expect(result.stderr).to.equal(`core replay: cannot read ${absent}: no such file\n`);
      const directory = await runCore(['replay', tempWorkspace()], { cwd: tempWorkspace() });
      expect(directory.stderr).to.match(/: it is a directory, not a file\n$/);
    });

    it('says so when --until names an event past the end of the log, and prints the end', async function () {
      const end = lastSeq(record);
      const result = await runCore(['replay', record, '--until', String(end + 1000)], { cwd: tempWorkspace() });
      expect(result.code).to.equal(0);
      expect(result.stderr).to.equal(`core replay: warning: the log's last session ends at event ${end}; --until ${end + 1000} shows its end\n`);
      expect(JSON.parse(result.stdout)).to.deep.equal(await replayReport(record, root));
      expect((await runCore(['replay', record, '--until', String(end)], { cwd: tempWorkspace() })).stderr).to.equal('');
    });

    it('exits 1 on a line that is not an event, or an event type it does not know', async function () {
      const dir = tempWorkspace();
      const start = fs.readFileSync(record, 'utf8').split('\n')[0]!;
      for (const [name, text] of [
        ['garbage.ndjson', `${start}\nnot json at all\n{"seq": 3}\n`],
        ['future.ndjson', `${start}\n{"seq": 2, "time": "2030-01-01T00:00:00.000Z", "type": "build.teleported"}\n`],
      ] as const) {
        fs.writeFileSync(path.join(dir, name), text);
        const result = await runCore(['replay', path.join(dir, name)], { cwd: dir });
        expect(result.code, name).to.equal(1);
        expect(result.stderr, name).to.include(name);
      }
    });

    it('skips a last line cut off by a killed server, with a warning', async function () {
      const dir = tempWorkspace();
      const text = fs.readFileSync(record, 'utf8');
      fs.writeFileSync(path.join(dir, 'cut.ndjson'), `${text}{"seq": 99999, "time": "20`);
      const result = await runCore(['replay', path.join(dir, 'cut.ndjson')], { cwd: dir });
      expect(result.code).to.equal(0);
      expect(result.stderr).to.include('warning');
      expect(JSON.parse(result.stdout)).to.deep.equal(await replayReport(record, root));
    });

    it('exits 2 without a file, or with a --until that is no seq', async function () {
      expect((await runCore(['replay'], { cwd: tempWorkspace() })).code).to.equal(2);
      expect((await runCore(['replay', record, '--until', 'later'], { cwd: tempWorkspace() })).code).to.equal(2);
    });
  });
});
