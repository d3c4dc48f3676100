// `core run [DIR] --dev` (README "The command line"): the development extension by flag, the
// workspace named by argument with relative options read from the current directory, and
// /preview/ without the extension naming the missing extension.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { killAllCores, startCore } from '../helpers/cli.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('core run options', function () {
  after(async function () {
    await killAllCores();
  });

  it('--dev loads the development extension: the preview is served with no environment variable', async function () {
    const core = await startCore(['--port', '0', '--dev', '--cdn', 'local'], { cwd: fixtureWorkspace('basic') });
    try {
      const page = await get(core.url, '/preview/');
      expect(page.status, page.text.slice(0, 300)).to.equal(200);
      expect(page.text).to.include('type="importmap"');
    } finally {
      await core.stop();
    }
  });

  it('without the extension, /preview/ answers 404 PREVIEW_NOT_LOADED with a remedy naming --dev; other paths keep OUTPUT_NOT_AVAILABLE', async function () {
    const core = await startCore(['--port', '0'], { cwd: fixtureWorkspace('basic') });
    try {
      for (const address of ['/preview/', '/preview', '/preview/entry.json', '/preview/bundled/']) {
        const answer = await get(core.url, address);
        expect(answer.status, address).to.equal(404);
        expect(answer.json<{ code: string; remedy: string }>().code, address).to.equal('PREVIEW_NOT_LOADED');
        expect(answer.json<{ code: string; remedy: string }>().remedy, address).to.include('core run --dev');
      }
      expect((await get(core.url, '/previews')).json<{ code: string }>().code).to.equal('OUTPUT_NOT_AVAILABLE');
      expect(core.output.stderr).to.include('core run --dev');
    } finally {
      await core.stop();
    }
  });

  it('serves the workspace named by DIR, and writes --record relative to the current directory', async function () {
    const root = fixtureWorkspace('basic');
    const cwd = tempWorkspace();
    const core = await startCore([root, '--port', '0', '--record', 'session.ndjson'], { cwd });
    try {
      const state = await get(core.url, '/state');
      expect(state.json<{ modules: { specifier: string }[] }>().modules.map((m) => m.specifier)).to.include('@acme/app/main');
    } finally {
      await core.stop();
    }
    expect(fs.existsSync(path.join(cwd, 'session.ndjson')), 'the record beside the command').to.equal(true);
    expect(fs.existsSync(path.join(root, 'session.ndjson')), 'nothing written into the workspace').to.equal(false);
  });
});
