// The mark of a top-level diagnostic on the terminal (README "The terminal of `core run`"): an
// error, such as a package.json that is not JSON (its package's modules gone), is marked `✘` as
// esbuild marks an error and as a module's errors are, on the error level; a hint stays a `▲` warning.
import { expect } from 'chai';
import { linesBetween, snapshotOf, untoldSnapshot } from '../../src/cli/live-lines.js';
import { readyLine } from '../../src/cli/run-terminal.js';
import { terminalStyle } from '../../src/cli/terminal-style.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe('the terminal: the mark of a top-level diagnostic', function () {
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/lib', 'packages/app'] }),
      'packages/lib/package.json': '{"name": "@r/lib", "version": "1.0.0", "exports": {',
      'packages/lib/a.ts': 'export const a = 1;\n',
      'packages/app/package.json': json({ name: '@r/app', version: '1.0.0', exports: { './main': './main.ts' } }),
      'packages/app/main.ts': 'export const main = 1;\n',
    });
    service = await serve(root);
  });
  after(async function () {
    await service?.close();
  });

  it('marks a broken package.json (a top-level MANIFEST_INVALID) as an error, ✘ on the error level', async function () {
    const report = await service.report();
    expect(report.diagnostics.map((d) => d.kind)).to.deep.equal(['MANIFEST_INVALID']);
    const state = service.internals.store.getState();
    const lines = linesBetween(untoldSnapshot(state), snapshotOf(state), state, { style: terminalStyle(false), readSource: () => null, sinceChange: null });
    const told = lines.filter((line) => line.text.includes('MANIFEST_INVALID')).map((line) => [line.level, line.text.split('\n')[0]!.slice(0, 20)]);
    expect(told).to.deep.equal([['error', '✘ [MANIFEST_INVALID]']]);
  });

  // The ready line agrees with the ✘ line, /state's top-level diagnostic and the dashboard's "Workspace (1)".
  it('counts it in the ready line, which says 0 invalid modules but never that all is well', async function () {
    await service.report();
    const state = service.internals.store.getState();
    expect(readyLine(state, 12, terminalStyle(false))).to.equal('  ✓ ready in 12 ms  (1 module, 0 invalid, 1 workspace error)\n\n');
  });
});
