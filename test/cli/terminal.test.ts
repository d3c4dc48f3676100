// What `core run` tells the person at the terminal: the banner, colour on a terminal only,
// a line per meaningful change while serving (a burst told once), and a busy default port.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startService } from '../../src/index.js';
import { ListenError } from '../../src/service.js';
import { changeTimer, formatDiagnostic, linesBetween, snapshotOf, untoldSnapshot } from '../../src/cli/live-lines.js';
import { framedSource, SOURCE_CHANGED } from '../../src/io/source-frames.js';
import type { Fact } from '../../src/store/events.js';
import type { ServiceState } from '../../src/store/state.js';
import { diagnostic } from '../../src/workspace/diagnostics.js';
import { fold, moduleModel, started, startedBuild, workspaceModel } from '../helpers/models.js';
import { terminalStyle, wantsColor } from '../../src/cli/terminal-style.js';
import { CORE_BIN, DEVELOPMENT_ENV, killAllCores, startCore } from '../helpers/cli.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { BUILT_LINE, FRAMED_FILE, framedWorkspace, SAVED_LINE, SAVED_TEXT } from '../helpers/framed-state.js';
import { get } from '../helpers/http.js';
import { waitFor } from '../helpers/wait-for.js';
import { inlineWorkspace } from '../helpers/workspace.js';

const ESCAPE = /\u001b\[/;
const STACK_LINE = /^\s+at /m;

function occupyPort(): Promise<net.Server & { port: number }> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => resolve(Object.assign(server, { port: (server.address() as net.AddressInfo).port })));
  });
}

describe('wantsColor', function () {
  it('colours a terminal, not a pipe; NO_COLOR turns it off and FORCE_COLOR on', function () {
    expect(wantsColor({ isTTY: true }, {})).to.equal(true);
    expect(wantsColor({ isTTY: false }, {})).to.equal(false);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: '1' })).to.equal(false);
    expect(wantsColor({ isTTY: false }, { FORCE_COLOR: '1' })).to.equal(true);
    expect(wantsColor({ isTTY: true }, { FORCE_COLOR: '0' })).to.equal(false);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: '' })).to.equal(true);
  });
});

describe('formatDiagnostic', function () {
  it('prints the message, the place and the line with a caret under the column, as esbuild does, then the remedy of its kind', function () {
    const text = formatDiagnostic(
      { kind: 'BUNDLE_ERROR', message: 'Could not resolve "./nope.js"', file: 'packages/a/main/index.ts', line: 2, column: 8 },
      terminalStyle(false),
      ['export {};', "import './nope.js';"],
      'x',
      '@a/a/main',
    );
    expect(text.split('\n')).to.deep.equal([
      'x [BUNDLE_ERROR] Could not resolve "./nope.js"  @a/a/main',
      '    packages/a/main/index.ts:2:8:',
      "      2 │ import './nope.js';",
      '        ╵        ^',
      '    → fix the source at the file, line and column given',
    ]);
  });

  it('prints the remedy of the kind under a diagnostic without a place too', function () {
    const text = formatDiagnostic({ kind: 'DEPENDENCY_NOT_DECLARED', message: 'lit is not declared' }, terminalStyle(false), null, 'x');
    expect(text.split('\n')).to.deep.equal(['x [DEPENDENCY_NOT_DECLARED] lit is not declared', '    → declare it in `dependencies` of the importing package']);
  });
});

describe('linesBetween', function () {
  const linesOf = (root: string, state: ServiceState) =>
    linesBetween(untoldSnapshot(state), snapshotOf(state), state, { style: terminalStyle(false), readSource: (file, hash) => framedSource(root, file, hash), sinceChange: null }).map((line) => line.text);

  it("prints a broken module's line from the file its build read", function () {
    const { root, state } = framedWorkspace();
    expect(linesOf(root, state).join('\n')).to.include(`      2 │ ${BUILT_LINE}`);
  });

  it('says the file changed, and prints none of its new lines, when it was saved after that build', function () {
    const { root, state } = framedWorkspace(SAVED_TEXT);
    const [text] = linesOf(root, state);
    expect(text!.split('\n').slice(1, 3)).to.deep.equal([`    ${FRAMED_FILE}:2:8:`, `      ${SOURCE_CHANGED}`]);
    expect(text).to.not.include(SAVED_LINE);
  });
});

describe('linesBetween, esbuild unavailable', function () {
  // Five modules whose build esbuild's process could not run, and one that failed for a reason of its own.
  const DEV_KEY = 'browser.development';
  const modules = ['a', 'b', 'c', 'd', 'e', 'f'].map((subpath) => moduleModel(subpath));
  const failed = (module: (typeof modules)[number], kind: 'ENGINE_UNAVAILABLE' | 'BUNDLE_ERROR'): Fact => ({
    type: 'build.failed',
    build: 1,
    module: module.specifier,
    variant: DEV_KEY,
    errors: [diagnostic(kind, kind === 'BUNDLE_ERROR' ? 'Could not resolve "./nope.js"' : `${module.specifier} was not built: esbuild's process died 4 times within 60 s; save a file to build again`)],
    imports: [],
    inputs: {},
  });
  const state = fold([started, { type: 'workspace.read', workspace: workspaceModel(modules) }, startedBuild(1, DEV_KEY, modules.map((module) => ({ module, generation: 1 }))), ...modules.map((module) => failed(module, module === modules[5] ? 'BUNDLE_ERROR' : 'ENGINE_UNAVAILABLE'))]);

  it('says once that esbuild is unavailable, why, which modules it left unbuilt and what brings it back', function () {
    const lines = linesBetween(untoldSnapshot(state), snapshotOf(state), state, { style: terminalStyle(false), readSource: () => null, sinceChange: null }).map((line) => line.text);
    const told = lines.filter((line) => line.includes('ENGINE_UNAVAILABLE'));
    expect(told).to.have.length(1);
    const [a, b, c, d] = modules.map((module) => module.specifier);
    expect(told[0]!.split('\n')).to.deep.equal([
      `✘ [ENGINE_UNAVAILABLE] esbuild is unavailable (esbuild's process died 4 times within 60 s): 5 modules not built, ${a}, ${b}, ${c}, ${d} and 1 more`,
      '    → save a file to build again; if it keeps dying, report it to esbuild with what `core run` printed (its panic)',
    ]);
    expect(lines.filter((line) => line.includes('[BUNDLE_ERROR]')), 'the module that failed for its own reason').to.have.length(1);
  });
});

describe('changeTimer', function () {
  it('times a settled state from the first change that unsettled it, and forgets a change that left it settled', function () {
    let clock = 1_000;
    const timer = changeTimer(() => clock);
    expect(timer.settled(), 'no change yet').to.equal(null);
    // A file of a module that cannot build: reduced, the state is still settled.
    timer.changed(true);
    clock = 6_000;
    timer.changed(false); // a stylesheet saved five seconds later
    clock = 6_010;
    timer.changed(false); // its second look, before the build ends
    clock = 6_012;
    expect(timer.settled()).to.equal(12);
    expect(timer.settled(), 'told once').to.equal(null);
  });
});

describe('core run on the terminal', function () {
  after(async function () {
    await killAllCores();
  });

  it('prints a plain banner to a pipe: version, the addresses, the CDN and the counts, then ready in N ms', async function () {
    const core = await startCore(['--port', '0'], { cwd: fixtureWorkspace('basic'), env: DEVELOPMENT_ENV });
    try {
      await waitFor(() => /ready in \d+ ms/.test(core.output.stdout), { what: 'the ready line' });
      const out = core.output.stdout;
      expect(out).to.not.match(ESCAPE);
      expect(out).to.match(/core \d+\.\d+\.\d+\n/);
      expect(out).to.include(`Dashboard ${core.url}\n`);
      expect(out).to.include(`Preview   ${core.url}preview/\n`);
      expect(out).to.include(`Bundled   ${core.url}preview/bundled/ (one script, one sheet)\n`);
      expect(out).to.include(`State     ${core.url}state\n`);
      expect(out).to.include('CDN       https://cdn.test\n');
      expect(out).to.match(/Workspace .* \(2 packages, 5 modules\)\n/);
      expect(out).to.match(/✓ ready in \d+ ms {2}\(5 modules, 0 invalid\)\n/);
      expect(out.indexOf('Dashboard')).to.be.below(out.indexOf('Preview'));
      expect(out.indexOf(`  ${core.url}\n`)).to.be.below(out.indexOf('ready in'));
    } finally {
      await core.stop();
    }
  });

  // A workspace bundler that finishes no build until a gate file exists: only a URL printed
  // while the builds run lets the test open the gate (README "The terminal of `core run`").
  function gatedWorkspace(): { root: string; gate: string } {
    const gate = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'core-gate-')), 'open');
    const bundler = `import fs from 'node:fs';
import path from 'node:path';
const opened = () => new Promise((resolve) => { const look = () => (fs.existsSync(${JSON.stringify(gate)}) ? resolve() : setTimeout(look, 10)); look(); });
export function createBundler({ root }) {
  const compile = async (target) => {
    await opened();
    const text = fs.readFileSync(path.join(root, target.entry), 'utf8');
    return { specifier: target.specifier, code: Buffer.from('export const SOURCE = ' + JSON.stringify(text) + ';\\n'), styles: null, inputs: [target.entry], imports: [], errors: [] };
  };
  return { bundle: async (targets) => Promise.all(targets.map(compile)), rebuild: async (target) => compile(target), dispose: async () => {} };
}
`;
    const root = fixtureWorkspace('basic', {
      'gated-bundler.mjs': bundler,
      'packages/lib/widgets/badge/module.json': JSON.stringify({ platforms: ['web'], entry: 'index.ts', assets: ['star.svg'], bundler: 'gated' }),
    });
    const manifest = path.join(root, 'packages/lib/package.json');
    const lib = JSON.parse(fs.readFileSync(manifest, 'utf8'));
    fs.writeFileSync(manifest, JSON.stringify({ ...lib, bundlers: { ...lib.bundlers, gated: './gated-bundler.mjs' } }));
    return { root, gate };
  }

  it('prints its URL once it listens, while the first builds still run; a request meanwhile waits for them', async function () {
    const { root, gate } = gatedWorkspace();
    const core = await startCore(['--port', '0'], { cwd: root, env: DEVELOPMENT_ENV });
    try {
      expect(core.output.stdout).to.match(/Workspace .* \(2 packages, 5 modules\)/);
      const state = get(core.url, '/state');
      // The service is answering, and the state waits for the gated build.
      expect((await get(core.url, `/m/@acme/lib@1.2.0/modules/format?${DEV}`)).status).to.equal(200);
      const waited = await Promise.race([state.then(() => 'answered'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 300))]);
      expect(waited).to.equal('waiting');
      expect(core.output.stdout).to.not.include('ready in');
      fs.writeFileSync(gate, '');
      const answer = await state;
      expect(answer.status).to.equal(200);
      expect((JSON.parse(answer.text) as { modules: { status: string }[] }).modules.every((m) => m.status === 'valid')).to.equal(true);
      await waitFor(() => /ready in \d+ ms {2}\(5 modules, 0 invalid\)/.test(core.output.stdout), { what: 'the ready line once the gate is open' });
    } finally {
      fs.writeFileSync(gate, '');
      await core.stop();
    }
  });

  it('colours the banner when FORCE_COLOR is set, and a pseudo-terminal too', async function () {
    const forced = await startCore(['--port', '0'], { cwd: fixtureWorkspace('basic'), env: { ...DEVELOPMENT_ENV, NO_COLOR: '', FORCE_COLOR: '1' } });
    try {
      expect(forced.output.stdout).to.match(ESCAPE);
    } finally {
      await forced.stop();
    }
    // script(1) gives the command a real terminal; its output is what the person would see.
    const env: NodeJS.ProcessEnv = { ...process.env, ...DEVELOPMENT_ENV };
    delete env.NO_COLOR;
    delete env.FORCE_COLOR;
    delete env.NODE_OPTIONS;
    const child = spawn('script', ['-qfc', `${JSON.stringify(process.execPath)} ${JSON.stringify(CORE_BIN)} run --port 0`, '/dev/null'], { cwd: fixtureWorkspace('basic'), env, stdio: ['pipe', 'pipe', 'pipe'] });
    let seen = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (seen += chunk));
    try {
      await waitFor(() => /Workspace/.test(seen), { what: 'the banner on a pseudo-terminal' });
      expect(seen).to.match(ESCAPE);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('tells when a module breaks (with its code frame), when it builds again and when a stylesheet is pushed', async function () {
    const root = fixtureWorkspace('basic');
    const core = await startCore(['--port', '0'], { cwd: root, env: DEVELOPMENT_ENV });
    try {
      const entry = path.join(root, 'packages/app/main/index.ts');
      const original = fs.readFileSync(entry, 'utf8');
      fs.writeFileSync(entry, `${original}\nimport './missing-helper.js';\n`);
      await waitFor(() => core.output.stderr.includes('missing-helper'), { what: 'the line of the broken module' });
      const lineNumber = `${original}\n`.split('\n').length;
      await waitFor(() => core.output.stderr.includes(`${lineNumber} │ import './missing-helper.js';`), { what: 'its code frame' });
      expect(core.output.stderr).to.match(/\[BUNDLE_ERROR\] Could not resolve "\.\/missing-helper\.js" {2}@acme\/app\/main/);
      expect(core.output.stderr).to.include(`packages/app/main/index.ts:${lineNumber}:`);
      fs.writeFileSync(entry, original);
      await waitFor(() => core.output.stdout.includes('@acme/app/main valid again'), { what: 'the line of the module built again' });
      const sheet = path.join(root, 'packages/app/main/styles.css');
      fs.appendFileSync(sheet, '\n.added { color: teal; }\n');
      await waitFor(() => /styles @acme\/app\/main pushed/.test(core.output.stdout), { what: 'the line of the pushed stylesheet' });
      expect(core.output.stdout, 'a stylesheet alone changes no code').to.not.match(/code @acme\/app\/main rebuilt/);
      fs.appendFileSync(sheet, '\n.unclosed { color: red;\n');
      await waitFor(() => /styles @acme\/app\/main rebuilt with a CSS syntax problem: open pages keep the last good sheet/.test(core.output.stdout), { what: 'the line of a sheet the pages keep out' });
      expect(core.output.stdout.match(/styles @acme\/app\/main pushed/g), 'one push: the good sheet').to.have.length(1);
      fs.writeFileSync(entry, `${original}\nexport const added = 'added';\n`);
      await waitFor(() => /code @acme\/app\/main rebuilt \(\d+ ms\)/.test(core.output.stdout), { what: 'the line of the code rebuilt' });
      expect(core.output.stdout + core.output.stderr).to.not.match(STACK_LINE);
    } finally {
      await core.stop();
    }
  });

  it('tells what a manifest read again changed: a version, a module added and removed', async function () {
    const root = fixtureWorkspace('basic');
    const core = await startCore(['--port', '0'], { cwd: root, env: DEVELOPMENT_ENV });
    try {
      const manifest = path.join(root, 'packages/app/package.json');
      const json = JSON.parse(fs.readFileSync(manifest, 'utf8'));
      fs.writeFileSync(manifest, JSON.stringify({ ...json, version: '1.1.0', exports: { ...json.exports, './extra': './main/index.ts' } }));
      await waitFor(() => core.output.stdout.includes('manifests read again'), { what: 'the line of the manifests read again' });
      await waitFor(() => /manifests read again: @acme\/app 1\.0\.0 → 1\.1\.0 \+@acme\/app\/extra/.test(core.output.stdout), { what: 'the version and the module added' });
    } finally {
      await core.stop();
    }
  });

  // The check before an answer may read a manifest again while the first builds run: the
  // live lines start from what the banner told, so the change is still told (CI once missed it).
  it('tells a manifest changed while the first builds run, even when a request has read it again', async function () {
    const { root, gate } = gatedWorkspace();
    const core = await startCore(['--port', '0'], { cwd: root, env: DEVELOPMENT_ENV });
    try {
      const manifest = path.join(root, 'packages/app/package.json');
      const json = JSON.parse(fs.readFileSync(manifest, 'utf8'));
      fs.writeFileSync(manifest, JSON.stringify({ ...json, version: '1.1.0', exports: { ...json.exports, './extra': './main/index.ts' } }));
      // Its check reads the manifests again before the first builds are done.
      expect((await get(core.url, `/m/@acme/app@1.1.0/modules/extra?${DEV}`)).status).to.equal(200);
      expect(core.output.stdout).to.not.include('ready in');
      fs.writeFileSync(gate, '');
      await waitFor(() => /ready in \d+ ms {2}\(6 modules, 0 invalid\)/.test(core.output.stdout), { what: 'the ready line once the gate is open' });
      await waitFor(() => /manifests read again: @acme\/app 1\.0\.0 → 1\.1\.0 \+@acme\/app\/extra/.test(core.output.stdout), { what: 'the version and the module added' });
    } finally {
      fs.writeFileSync(gate, '');
      await core.stop();
    }
  });

  it('tells a burst of stylesheets in one line, and never as pushed those the pages keep out for a syntax problem', async function () {
    const modules: Record<string, string> = { 'shared/look.css': '.look { color: teal; }\n' };
    const exports: Record<string, string> = {};
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      modules[`${name}/index.ts`] = `import '../shared/look.css';\nexport const ${name} = 1;\n`;
      exports[`./${name}`] = `./${name}/index.ts`;
    }
    const root = inlineWorkspace({ 'packages/many': { manifest: { name: '@acme/many', version: '1.0.0', exports }, files: modules } });
    const core = await startCore(['--port', '0'], { cwd: root, env: DEVELOPMENT_ENV });
    try {
      await waitFor(() => core.output.stdout.includes('ready in'), { what: 'the ready line' });
      const sheet = path.join(root, 'packages/many/shared/look.css');
      fs.appendFileSync(sheet, '.added { color: navy; }\n');
      await waitFor(() => /styles 5 stylesheets pushed/.test(core.output.stdout), { what: 'one line for the five pushed sheets' });
      fs.appendFileSync(sheet, '.unclosed { color: red;\n');
      await waitFor(() => /styles 5 rebuilt with a CSS syntax problem: open pages keep their last good sheets/.test(core.output.stdout), { what: 'one line for the five sheets kept out' });
      expect(core.output.stdout.match(/stylesheets pushed/g), 'one push: the good sheets').to.have.length(1);
    } finally {
      await core.stop();
    }
  });

  it('tells a burst of modules broken by one edit in one line', async function () {
    const modules: Record<string, string> = { 'shared/helper.ts': 'export const shared = 1;\n' };
    const exports: Record<string, string> = {};
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) {
      modules[`${name}/index.ts`] = `import { shared } from '../shared/helper.js';\nexport const ${name} = shared;\n`;
      exports[`./${name}`] = `./${name}/index.ts`;
    }
    const root = inlineWorkspace({ 'packages/many': { manifest: { name: '@acme/many', version: '1.0.0', exports }, files: modules } });
    const core = await startCore(['--port', '0'], { cwd: root, env: DEVELOPMENT_ENV });
    try {
      // The URL comes before the first builds are done: an edit meanwhile may reach some of them
      // and not others (two batches), and be told in two steps. This one follows them.
      await waitFor(() => core.output.stdout.includes('ready in'), { what: 'the ready line' });
      fs.writeFileSync(path.join(root, 'packages/many/shared/helper.ts'), "import './gone.js';\nexport const shared = 1;\n");
      // The burst's line and its first diagnostic are two writes: both, then nothing else.
      await waitFor(() => core.output.stderr.includes('6 modules invalid') && core.output.stderr.includes('Could not resolve "./gone.js"'), { what: 'one line for the six broken modules, with the first diagnostic' });
      expect(core.output.stderr.match(/\[BUNDLE_ERROR\]/g)).to.have.length(1);
      // Four named, the rest counted: no ellipsis that hides how many are left.
      expect(core.output.stderr).to.match(/6 modules invalid: (@acme\/many\/[a-f], ){3}@acme\/many\/[a-f] and 2 more\n/);
      fs.writeFileSync(path.join(root, 'packages/many/shared/helper.ts'), 'export const shared = 2;\n');
      await waitFor(() => core.output.stdout.includes('6 modules valid again'), { what: 'one line for the six modules built again' });
    } finally {
      await core.stop();
    }
  });

  it('--log-level silent prints the base URL alone and no live line; debug prints every event', async function () {
    const root = fixtureWorkspace('basic');
    const silent = await startCore(['--port', '0', '--log-level', 'silent'], { cwd: root, env: DEVELOPMENT_ENV });
    try {
      expect(silent.output.stdout).to.equal(`${silent.url}\n`);
      expect(silent.output.stderr).to.equal('');
    } finally {
      await silent.stop();
    }
    const debug = await startCore(['--port', '0', '--log-level', 'debug'], { cwd: root, env: DEVELOPMENT_ENV });
    try {
      // The silent run left its builds in the build cache: this one restores them.
      await waitFor(() => debug.output.stderr.includes('cache.restored'), { what: 'the events under debug' });
      expect(debug.output.stderr).to.match(/#1 service\.started/);
    } finally {
      await debug.stop();
    }
  });
});

describe('a busy port', function () {
  it('startService refuses it with ListenError PORT_IN_USE, and takes the next free one unless strict', async function () {
    const busy = await occupyPort();
    const root = fixtureWorkspace('basic');
    try {
      let refused: unknown = null;
      await startService({ root, port: busy.port, watch: false }).catch((error) => (refused = error));
      expect(refused).to.be.instanceOf(ListenError);
      expect((refused as ListenError).code).to.equal('PORT_IN_USE');
      const moved = await startService({ root, port: busy.port, strictPort: false, watch: false });
      try {
        expect(moved.port).to.be.above(busy.port);
      } finally {
        await moved.close();
      }
    } finally {
      busy.close();
    }
  });
});

describe('an extension that cannot set up', function () {
  it('stops the start as a busy port does: the error is thrown, the store ends and the record effect closes its file', async function () {
    let stateEnded = false;
    let eventsEnded = false;
    const failing = {
      name: 'failing',
      setup(host: { state$: { subscribe(o: { complete(): void }): unknown }; events$: { subscribe(o: { complete(): void }): unknown } }) {
        host.state$.subscribe({ complete: () => (stateEnded = true) });
        host.events$.subscribe({ complete: () => (eventsEnded = true) });
        throw new Error('setup refused');
      },
    };
    let refused: unknown = null;
    // The record effect's file: closed only when the effects are stopped.
    let recordClosed = false;
    const root = fixtureWorkspace('basic');
    await startService({
      root,
      watch: false,
      logger: () => {},
      extensions: [failing],
      record: path.join(root, '.core', 'events.ndjson'),
      effectDeps: (deps) => ({
        ...deps,
        openEventFile: (file) => {
          const opened = deps.openEventFile(file);
          return { append: opened.append, isNamed: opened.isNamed, close: () => ((recordClosed = true), opened.close()) };
        },
      }),
    }).catch((error) => (refused = error));
    expect((refused as Error | null)?.message).to.equal('setup refused');
    expect({ stateEnded, eventsEnded, recordClosed }).to.deep.equal({ stateEnded: true, eventsEnded: true, recordClosed: true });
  });
});
