// `.core/selection.json` is a manifest (README "Files that are not files"): one that is no regular
// file (a FIFO, a directory, a link to a device or out of the workspace) or that selects a name no
// package of the workspace has is said at it, MANIFEST_INVALID, and every package is in development
// meanwhile, as without a selection; a regular file put in its place is read with no restart.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';
import type { Report } from '../../src/store/selectors.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const SELECTION = '.core/selection.json';

function workspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/a', 'packages/b'] }),
    'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/b': '1.0.0' } }),
    'packages/a/main/index.ts': "import { b } from '@p/b/x';\nexport const a = b;\n",
    'packages/b/package.json': json({ name: '@p/b', version: '1.0.0', exports: { './x': './x/index.ts' } }),
    'packages/b/x/index.ts': 'export const b = 1;\n',
  });
}

describe('a .core/selection.json that cannot be taken is said at it, and every package is in development meanwhile', function () {
  it('a FIFO, a link to a device, a link leading out, a directory, a former name: each said in its words; a regular file in its place selects with no restart', async function () {
    const root = workspace();
    const file = path.join(root, SELECTION);
    fs.mkdirSync(path.dirname(file));
    execFileSync('mkfifo', [file]);
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'core-selection-outside-'));
    fs.writeFileSync(path.join(outside, 'selection.json'), json({ packages: ['@p/b'] }));
    const service = await serve(root);
    try {
      const development = async () => ((await service.get('/state/details')).json() as { packages: { name: string; development: boolean }[] }).packages.filter((p) => p.development).map((p) => p.name);
      const said = async (words: RegExp) =>
        waitFor(
          async () => {
            const report = (await service.get('/state')).json<Report>();
            const told = report.diagnostics.filter((d) => d.file === SELECTION).map((d) => [d.kind, d.message]);
            return told.length === 1 && words.test(told[0]![1]!) && told;
          },
          { timeout: 60_000, what: `the selection said as ${words}` },
        );
      const meanwhile = /: the selection is read from a regular file of the workspace only, so every package is in development until it is one; `core select --all` removes it \(a directory only while empty\) and `core select <package>...` replaces it$/;

      const fifo = await said(/^"\.core\/selection\.json" is a FIFO \(named pipe\), not a regular file/);
      expect(fifo[0]![0]).to.equal('MANIFEST_INVALID');
      expect(fifo[0]![1]).to.match(meanwhile);
      expect(await development()).to.deep.equal(['@p/a', '@p/b']);

      fs.rmSync(file);
      fs.symlinkSync('/dev/zero', file);
      expect((await said(/^"\.core\/selection\.json" is a symbolic link leading out of the workspace \(not followed\)/))[0]![1]).to.match(meanwhile);

      fs.rmSync(file);
      fs.symlinkSync(path.join(outside, 'selection.json'), file);
      await said(/^"\.core\/selection\.json" is a symbolic link leading out of the workspace/);
      expect(await development()).to.deep.equal(['@p/a', '@p/b']);

      fs.rmSync(file);
      fs.mkdirSync(file);
      await said(/^"\.core\/selection\.json" is a directory, not a regular file/);

      fs.rmdirSync(file);
      fs.writeFileSync(file, json({ packages: ['@p/old-name', '@p/b'] }));
      const former = await said(/^\.core\/selection\.json selects "@p\/old-name", which is no package of the workspace \(its packages: @p\/a, @p\/b; renamed since it was selected\?\)/);
      expect(former[0]![1]).to.include('every package is in development until the selection names packages of the workspace only');
      expect(await development()).to.deep.equal(['@p/a', '@p/b']);

      fs.writeFileSync(file, json({ packages: ['@p/b'] }));
      await waitFor(async () => (await service.get('/state')).json<Report>().diagnostics.length === 0, { timeout: 60_000, what: 'the selection read again' });
      expect(await development()).to.deep.equal(['@p/b']);
    } finally {
      await service.close();
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a .core directory made under a running service, holding a FIFO for the selection, is said at the next answer', async function () {
    const root = workspace();
    const service = await serve(root);
    try {
      expect((await service.report()).diagnostics).to.deep.equal([]);
      fs.mkdirSync(path.join(root, '.core'));
      execFileSync('mkfifo', [path.join(root, SELECTION)]);
      const told = await waitFor(async () => {
        const report = (await service.get('/state')).json<Report>();
        return report.diagnostics.length > 0 && report.diagnostics.map((d) => [d.kind, d.file, d.message.slice(0, d.message.indexOf(':'))]);
      });
      expect(told).to.deep.equal([['MANIFEST_INVALID', SELECTION, '".core/selection.json" is a FIFO (named pipe), not a regular file']]);
    } finally {
      await service.close();
    }
  });
});
