// `core dist` stopped while it writes (Ctrl-C, SIGTERM, a crash): the next run accepts what it
// left and writes over it (README "Distribution: core dist"). A real child process, signalled the
// moment its first output is renamed into place (the folder's watcher names that file).
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { distribute } from '../../src/dist/distribute.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { runCore, startCore } from './run-core.js';

const MODULES = 120;
const PACKAGE = '@p/lib@1.0.0';

// Many modules of a few kilobytes each: the renames take long enough for the signal to land among them.
function writeModules(root: string, tag: string): void {
  for (let i = 1; i <= MODULES; i += 1) {
    const folder = path.join(root, `packages/lib/m/m${i}`);
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, 'index.ts'), `export const v${i} = "${tag}-${i}-${'x'.repeat(3000)}";\n`);
  }
}

function manyModules(): string {
  const root = tempWorkspace({
    'core.json': JSON.stringify({ packages: ['packages/lib'] }),
    'packages/lib/package.json': JSON.stringify({ name: '@p/lib', version: '1.0.0', exports: { './*': './m/*/index.ts' }, core: { modules: 'm' } }),
  });
  writeModules(root, 'first');
  return root;
}

// Every file under `dir`, relative.
const allFiles = (dir: string): string[] => (fs.readdirSync(dir, { recursive: true }) as string[]).filter((entry) => fs.lstatSync(path.join(dir, entry)).isFile());

/** `core dist` started, `signal` sent the moment an output (a `.js`, not a temporary) is renamed into place; how it ended. */
async function signalledWhileRenaming(root: string, signal: NodeJS.Signals): Promise<{ signal: NodeJS.Signals | null; stderr: string }> {
  const child = startCore(root, ['dist']);
  let stderr = '';
  child.stdout.resume();
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const watcher = fs.watch(path.join(root, 'dist', PACKAGE, 'modules'), (_event, name) => {
    if (name?.endsWith('.js')) child.kill(signal);
  });
  try {
    const ended = await new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, by) => resolve(by)));
    return { signal: ended, stderr };
  } finally {
    watcher.close();
  }
}

// Each output holds the code of sources tagged `tag`, and the record lists each with its bytes.
function expectAllWritten(out: string, tag: string): void {
  const record = JSON.parse(fs.readFileSync(path.join(out, 'core-distribution.json'), 'utf8'));
  expect(record).to.not.have.property('pending');
  expect(record.outputs).to.have.length(MODULES);
  for (const output of record.outputs) {
    const bytes = fs.readFileSync(path.join(out, output.path));
    expect(bytes.toString(), output.path).to.include(`"${tag}-`);
    expect(contentHash(bytes), output.path).to.equal(output.hash);
  }
  expect(allFiles(out).filter((file) => file.endsWith('.tmp'))).to.deep.equal([]);
}

describe('core dist stopped while writing (README "Distribution: core dist")', function () {
  this.timeout(600_000);

  it('SIGKILL among the renames (a crash): the next run accepts the half old, half new outputs, writes them all and removes its temporaries', async () => {
    const root = manyModules();
    expect((await runCore(root, ['dist'])).code).to.equal(0);
    // A run that ends before the signal lands proves nothing: edited again and run again.
    let tag = '';
    let ended: NodeJS.Signals | null = null;
    for (let attempt = 1; attempt <= 3 && ended !== 'SIGKILL'; attempt += 1) {
      tag = `edit${attempt}`;
      writeModules(root, tag);
      ended = (await signalledWhileRenaming(root, 'SIGKILL')).signal;
    }
    expect(ended, 'the run was killed while it wrote').to.equal('SIGKILL');
    const rerun = await runCore(root, ['dist']);
    expect(rerun.stderr).to.equal('');
    expect(rerun.code).to.equal(0);
    expectAllWritten(path.join(root, 'dist'), tag);
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} among the renames: every file and the record are written first, then the run stops by it, and the next run writes over them`, async () => {
      const root = manyModules();
      expect((await runCore(root, ['dist'])).code).to.equal(0);
      writeModules(root, 'second');
      const stopped = await signalledWhileRenaming(root, signal);
      expect(stopped.signal).to.equal(signal);
      expect(stopped.stderr).to.include(`core dist: ${signal} came while writing dist: every file and core-distribution.json were written first`);
      expectAllWritten(path.join(root, 'dist'), 'second');
      writeModules(root, 'third');
      const rerun = await runCore(root, ['dist']);
      expect(rerun.code).to.equal(0);
      expectAllWritten(path.join(root, 'dist'), 'third');
    });
  }

  it("removes the temporaries a stopped run left beside a record's place (regular files of a process no longer running), nothing else", async () => {
    const root = tempWorkspace({
      'core.json': JSON.stringify({ packages: ['packages/lib'] }),
      'packages/lib/package.json': JSON.stringify({ name: '@p/lib', version: '1.0.0', exports: { './*': './m/*/index.ts' }, core: { modules: 'm' } }),
      'packages/lib/m/one/index.ts': 'export const one = 1;\n',
    });
    const out = path.join(root, 'dist');
    await distribute({ root, out, parallelism: 1 });
    const ended = spawnSync(process.execPath, ['-e', '']).pid!; // a process id no process has now
    const modules = path.join(out, PACKAGE, 'modules');
    fs.writeFileSync(path.join(modules, `one.js.${ended}.tmp`), 'half');
    fs.writeFileSync(path.join(out, `core-distribution.json.${ended}.tmp`), '{');
    fs.writeFileSync(path.join(modules, `notes.txt.${ended}.tmp`), 'the user\'s'); // no place of a record
    fs.writeFileSync(path.join(modules, `one.js.${process.ppid}.tmp`), 'a running process\'s');
    fs.mkdirSync(path.join(modules, `one.js.${ended + 1}.tmp`)); // a folder: no temporary core dist makes
    const again = await distribute({ root, out, parallelism: 1 });
    expect(again.ok).to.equal(true);
    expect(again.removedTemporaries).to.deep.equal([`${PACKAGE}/modules/one.js.${ended}.tmp`, `core-distribution.json.${ended}.tmp`]);
    expect(fs.readdirSync(modules).sort()).to.deep.equal([`notes.txt.${ended}.tmp`, 'one.js', `one.js.${ended + 1}.tmp`, `one.js.${process.ppid}.tmp`].sort());
  });
});
