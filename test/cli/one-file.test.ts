import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEVELOPMENT_ENV, killAllCores, startCore } from '../helpers/cli.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { waitFor } from '../helpers/wait-for.js';
import { PROJECT_DIR } from '../helpers/workspace.js';

const RECORDER = path.join(PROJECT_DIR, 'test/helpers/record-loads.mjs');

describe('the command in one file', function () {
  this.timeout(60_000);
  after(killAllCores);

  // ARCHITECTURE.md, "The command in one file": Node reads dist/core.js instead of some 300
  // files, and the extension and bundlers named by specifier are the ones inside it.
  it('core run loads dist/core.js and, of the rest, only esbuild, whatever it serves', async function () {
    const loads = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'core-loads-')), 'loads.txt');
    const core = await startCore(['--port', '0'], {
      cwd: fixtureWorkspace('basic'),
      env: { ...DEVELOPMENT_ENV, NODE_OPTIONS: `--import=${RECORDER}`, CORE_TEST_LOADS: loads },
    });
    try {
      await waitFor(() => core.output.stdout.includes('ready in'), { what: 'the ready line' });
      for (const address of ['/state', '/preview/', '/m/@acme/app@1.0.0/modules/main', '/']) {
        expect((await get(core.url, address, { accept: 'text/html,*/*' })).status, address).to.equal(200);
      }
    } finally {
      await core.stop();
    }
    const files = [...new Set(fs.readFileSync(loads, 'utf8').split('\n').filter(Boolean))];
    const packageFiles = files.filter((file) => file.startsWith(PROJECT_DIR + path.sep) && file !== RECORDER && !file.includes(`${path.sep}record-loads-hooks.mjs`));
    const relative = packageFiles.map((file) => path.relative(PROJECT_DIR, file));
    expect(relative).to.include('dist/core.js');
    // esbuild is a program of its own, run from its package; nothing else is read as a module.
    expect(relative.filter((file) => !file.startsWith('node_modules/esbuild/')).sort()).to.deep.equal(['bin/core.js', 'dist/core.js']);
  });
});
