// `core run` as a user starts it: `node bin/core.js run` in a workspace directory, its output,
// its environment (CORE_SERVICE_EXTENSIONS, CORE_CDN_ORIGIN), its options, and its end on
// SIGTERM and SIGINT. Needs dist/ to be current (`npx tsc -p tsconfig.json`).
import http from 'node:http';
import { expect } from 'chai';
import { expectError } from '../helpers/answers.js';
import { DEVELOPMENT_ENV, killAllCores, runCore, startCore, type RunningCore } from '../helpers/cli.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { waitFor } from '../helpers/wait-for.js';
import { tempWorkspace } from '../helpers/workspace.js';

/** Lines of stderr come after the URL on stdout: wait for the one wanted. */
const stderrLine = (core: RunningCore, text: string) =>
  waitFor(() => core.output.stderr.split('\n').find((line) => line.includes(text)), { what: `a line of stderr naming ${text}` });

describe('core run', function () {
  after(async function () {
    await killAllCores();
  });

  describe('with the development extension and a CDN', function () {
    let root: string;
    let core: RunningCore;

    before(async function () {
      root = fixtureWorkspace('basic');
      core = await startCore(['--port', '0'], { cwd: root, env: DEVELOPMENT_ENV });
    });
    after(async function () {
      if (core) await core.stop();
    });

    it('prints its base URL http://127.0.0.1:PORT/ on a line of stdout', function () {
      expect(core.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(core.port).to.be.above(0);
      expect(core.output.stdout.split('\n').map((line) => line.trim())).to.include(core.url);
    });

    it('serves the workspace of its directory: /state, /m/ and the preview', async function () {
      const state = await get(core.url, '/state');
      expect(state.status).to.equal(200);
      expect(state.json().modules.map((m: { specifier: string }) => m.specifier)).to.include('@acme/app/main');
      expect((await get(core.url, `/m/@acme/app@1.0.0/modules/main?${DEV}`)).text).to.include('APP_HELPER_MARKER');
      const preview = await get(core.url, '/preview/entry.json');
      expect(preview.status).to.equal(200);
      expect(preview.json().imports.lit).to.equal('https://cdn.test/lit@3.1.0');
    });

    it('warns about neither the CDN nor the extension', function () {
      expect(core.output.stderr).not.to.include('PREVIEW_CDN_UNSET');
      expect(core.output.stderr).not.to.include('CORE_SERVICE_EXTENSIONS');
    });

    it('takes a closed /state event stream as no error', async function () {
      await new Promise<void>((resolve, reject) => {
        const request = http.get(`${core.url}state`, { headers: { accept: 'text/event-stream' }, agent: false }, (response) => {
          response.once('data', () => {
            request.destroy();
            resolve();
          });
        });
        request.on('error', reject);
      });
      // A request after the disconnect is answered, so the server has seen the close by now.
      expect((await get(core.url, '/state')).status).to.equal(200);
      expect((await get(core.url, '/log')).status).to.equal(200);
      expect(core.output.stderr).not.to.match(/Premature close|ERR_STREAM|Error/);
    });

    it('exits 0 on SIGTERM', async function () {
      const result = await core.stop('SIGTERM');
      expect(result.signal).to.equal(null);
      expect(result.code).to.equal(0);
    });
  });

  it('exits 0 on SIGTERM and SIGINT sent the moment the URL is printed', async function () {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGTERM'] as const) {
      const core = await startCore(['--port', '0'], { cwd: fixtureWorkspace('basic'), env: DEVELOPMENT_ENV });
      const result = await core.stop(signal);
      expect(result.signal, signal).to.equal(null);
      expect(result.code, signal).to.equal(0);
    }
  });

  it('exits 0 on SIGINT', async function () {
    const core = await startCore(['--port', '0'], { cwd: fixtureWorkspace('basic'), env: DEVELOPMENT_ENV });
    expect((await get(core.url, '/state')).status).to.equal(200);
    const result = await core.stop('SIGINT');
    expect(result.signal).to.equal(null);
    expect(result.code).to.equal(0);
  });

  it('warns PREVIEW_CDN_UNSET without CORE_CDN_ORIGIN, and the preview answers 503', async function () {
    const core = await startCore(['--port', '0'], { cwd: fixtureWorkspace('basic'), env: { CORE_SERVICE_EXTENSIONS: DEVELOPMENT_ENV.CORE_SERVICE_EXTENSIONS } });
    try {
      const warning = await stderrLine(core, 'PREVIEW_CDN_UNSET');
      expect(warning).to.include('CORE_CDN_ORIGIN');
      expectError(await get(core.url, '/preview/'), { status: 503, code: 'PREVIEW_CDN_UNSET', mentions: ['CORE_CDN_ORIGIN'] });
      expect((await get(core.url, `/m/@acme/app@1.0.0/modules/main?${DEV}`)).status).to.equal(200);
    } finally {
      expect((await core.stop()).code).to.equal(0);
    }
  });

  it('prints a one-line hint without CORE_SERVICE_EXTENSIONS, and serves /m/, /state and /log only', async function () {
    const core = await startCore(['--port', '0'], { cwd: fixtureWorkspace('basic'), env: { CORE_CDN_ORIGIN: 'https://cdn.test' } });
    try {
      expect(await stderrLine(core, 'CORE_SERVICE_EXTENSIONS')).to.include('@core-js/packages/development');
      expect(core.output.stderr.split('\n').filter((line) => line.includes('CORE_SERVICE_EXTENSIONS'))).to.have.lengthOf(1);
      expect((await get(core.url, `/m/@acme/app@1.0.0/modules/main?${DEV}`)).status).to.equal(200);
      expect((await get(core.url, '/state')).status).to.equal(200);
      expect((await get(core.url, '/log')).status).to.equal(200);
      expectError(await get(core.url, '/preview/'), { status: 404, code: 'PREVIEW_NOT_LOADED', mentions: ['/preview/'] });
    } finally {
      expect((await core.stop()).code).to.equal(0);
    }
  });

  it('accepts the host names given with --allowed-host, and refuses others', async function () {
    const core = await startCore(['--port', '0', '--allowed-host', 'dev.example', '--allowed-host', 'qa.example'], { cwd: fixtureWorkspace('basic'), env: DEVELOPMENT_ENV });
    try {
      expect((await get(core.url, '/state', { host: 'dev.example' })).status).to.equal(200);
      expect((await get(core.url, '/state', { host: `qa.example:${core.port}` })).status).to.equal(200);
      expectError(await get(core.url, '/state', { host: 'evil.test' }), { status: 403, code: 'HOST_NOT_ALLOWED', mentions: ['evil.test'] });
    } finally {
      await core.stop();
    }
  });

  it('serves a workspace whose manifests are broken, and says so on stderr', async function () {
    const root = fixtureWorkspace('basic', { 'packages/lib/package.json': '{"name": ' });
    const core = await startCore(['--port', '0'], { cwd: root, env: DEVELOPMENT_ENV });
    try {
      expect(await stderrLine(core, 'MANIFEST_INVALID')).to.include('packages/lib/package.json');
      const report = (await get(core.url, '/state')).json();
      expect(report.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: 'packages/lib/package.json' });
    } finally {
      expect((await core.stop()).code).to.equal(0);
    }
  });

  describe('wrong usage', function () {
    it('exits 2 outside a workspace, naming core.json', async function () {
      const result = await runCore(['run', '--port', '0'], { cwd: tempWorkspace(), env: DEVELOPMENT_ENV });
      expect(result.code).to.equal(2);
      expect(result.stderr).to.include('core.json');
      expect(result.stdout).not.to.match(/http:\/\//);
    });

    it('exits 2 on an unknown option, naming it', async function () {
      const result = await runCore(['run', '--port', '0', '--bogus'], { cwd: fixtureWorkspace('basic'), env: DEVELOPMENT_ENV });
      expect(result.code).to.equal(2);
      expect(result.stderr).to.equal('core run: unknown option --bogus (core run --help lists the options)\n');
    });

    it('exits 2 on a port that is not a port number, or an unexpected argument', async function () {
      for (const args of [['--port', 'eighty'], ['--port', '70000'], ['--port', '0', 'extra']]) {
        const result = await runCore(['run', ...args], { cwd: fixtureWorkspace('basic'), env: DEVELOPMENT_ENV });
        expect(result.code, args.join(' ')).to.equal(2);
      }
    });

    it('exits 1 when the port asked for is in use, in one line and without a stack trace', async function () {
      const first = await startCore(['--port', '0'], { cwd: fixtureWorkspace('basic'), env: DEVELOPMENT_ENV });
      try {
        for (const args of [['--port', String(first.port)], ['--port', String(first.port), '--strict-port']]) {
          const result = await runCore(['run', ...args], { cwd: fixtureWorkspace('basic'), env: DEVELOPMENT_ENV });
          expect(result.code, args.join(' ')).to.equal(1);
          expect(result.stderr).to.equal(`core run: port ${first.port} is in use on 127.0.0.1; stop what uses it, or pass another --port (0 takes any free port)\n`);
          expect(result.stdout).to.equal('');
        }
      } finally {
        await first.stop();
      }
    });

    it('exits 2 with one line for a value that looks like an option, a missing value and a bad log level', async function () {
      const cases: [string[], string][] = [
        [['--port', '-1'], 'core run: --port must be a port number from 0 to 65535; got "-1" (core run --help lists the options)\n'],
        [['--port'], 'core run: --port needs a value (core run --help lists the options)\n'],
        [['--log-level', 'loud'], 'core run: --log-level must be one of silent, error, warn, info, debug; got "loud" (core run --help lists the options)\n'],
      ];
      for (const [args, line] of cases) {
        const result = await runCore(['run', ...args], { cwd: fixtureWorkspace('basic'), env: DEVELOPMENT_ENV });
        expect(result.code, args.join(' ')).to.equal(2);
        expect(result.stderr, args.join(' ')).to.equal(line);
      }
    });
  });
});
