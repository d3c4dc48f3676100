// A FIFO outside the workspace that a build or the start would open (README "Files that are not
// files"): a base a tsconfig's `extends` names outside it, a config in a folder above it, and a
// `package.json` above it, which Node's own resolution of the bundlers read before the service
// listened. None holds the service: `/state` answers, the module reading the config is invalid
// naming it, the others build, and `close()` settles.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { DEVELOPMENT_ENV, killAllCores, startCore } from '../helpers/cli.js';
import { get } from '../helpers/http.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace, writeFile } from '../helpers/workspace.js';
import type { Report } from '../../src/store/selectors.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const mkfifo = (file: string) => execFileSync('mkfifo', [file]);
const FIFO_SAYS = 'is a FIFO (named pipe), not a regular file';

/** A folder holding the workspace `ws/` (two packages) and whatever FIFO the test makes beside it. */
function workspaceInFolder(appTsconfig?: unknown): { parent: string; root: string } {
  const parent = tempWorkspace({});
  const root = path.join(parent, 'ws');
  const files: Record<string, string> = {
    'core.json': json({ packages: ['packages/app', 'packages/other'] }),
    'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
    'packages/app/main/index.ts': 'export const main = 1;\n',
    'packages/other/package.json': json({ name: '@p/other', version: '1.0.0', exports: { './o': './o.ts' } }),
    'packages/other/o.ts': 'export const o = 2;\n',
  };
  if (appTsconfig !== undefined) files['packages/app/tsconfig.json'] = json(appTsconfig);
  for (const [relative, text] of Object.entries(files)) writeFile(root, relative, text);
  return { parent, root };
}

const verdicts = (report: Report) => report.modules.map((m) => [m.specifier, m.status]);

describe('a FIFO outside the workspace that a build or the start would open', function () {
  this.timeout(120_000);

  after(async function () {
    await killAllCores();
  });

  for (const spelling of ['absolute', 'relative'] as const) {
    it(`a tsconfig "extends" naming one (${spelling}): /state answers, that package's module invalid naming it, the other valid; close() settles`, async function () {
      const outside = tempWorkspace({});
      const base = path.join(outside, 'base.json');
      mkfifo(base);
      const { root } = workspaceInFolder({ extends: base });
      // `../../../..`: taken from the package's folder of this workspace.
      if (spelling === 'relative') writeFile(root, 'packages/app/tsconfig.json', json({ extends: path.relative(path.join(root, 'packages/app'), base) }));
      const service = await serve(root);
      try {
        const report = (await service.get('/state')).json<Report>();
        expect(verdicts(report)).to.deep.equal([
          ['@p/app/main', 'invalid'],
          ['@p/other/o', 'valid'],
        ]);
        const [error] = report.modules[0]!.diagnostics;
        expect(error!.kind).to.equal('BUNDLE_ERROR');
        expect(error!.message).to.include(`"${base}" ${FIFO_SAYS}`);
        expect((await service.get('/m/@p/other@1.0.0/modules/o')).status).to.equal(200);
        expect((await service.get('/m/@p/app@1.0.0/modules/main')).status).to.equal(422);
      } finally {
        await service.close();
      }
    });
  }

  it('a tsconfig.json in a folder above the workspace: /state answers, each module invalid naming it; close() settles', async function () {
    const { parent, root } = workspaceInFolder();
    mkfifo(path.join(parent, 'tsconfig.json'));
    const service = await serve(root);
    try {
      const report = (await service.get('/state')).json<Report>();
      expect(verdicts(report)).to.deep.equal([
        ['@p/app/main', 'invalid'],
        ['@p/other/o', 'invalid'],
      ]);
      for (const module of report.modules) expect(module.diagnostics.map((d) => d.message).join('\n')).to.include(`"${path.join(parent, 'tsconfig.json')}" ${FIFO_SAYS}`);
    } finally {
      await service.close();
    }
  });

  it('a package.json in a folder above the workspace: core run listens, /state answers naming it, SIGTERM ends it', async function () {
    const { parent, root } = workspaceInFolder();
    mkfifo(path.join(parent, 'package.json'));
    const core = await startCore(['--port', '0'], { cwd: root, env: DEVELOPMENT_ENV });
    const answer = await get(core.url, '/state');
    expect(answer.status).to.equal(200);
    const report = answer.json<Report>();
    expect(verdicts(report)).to.deep.equal([
      ['@p/app/main', 'invalid'],
      ['@p/other/o', 'invalid'],
    ]);
    expect(report.modules[0]!.diagnostics.map((d) => d.message).join('\n')).to.include(`"${path.join(parent, 'package.json')}" ${FIFO_SAYS}`);
    const ended = await core.stop('SIGTERM');
    expect(ended.code, ended.stderr).to.equal(0);
  });
});
