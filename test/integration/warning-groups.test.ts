// Warnings about a package's own structure, grouped (README "Warnings"): a helper copied into a
// library's modules (CommonJS files, which are never served alone: README "Shared files") and a relative import of another of its own modules' entry are counted
// once per package and kind in /state (`warningGroups`) and told in one line each by the
// terminal, while each module keeps its own; a relative import reaching another package's
// module is no structure of that package, and is told on its own.
import { expect } from 'chai';
import { linesBetween, snapshotOf, untoldSnapshot } from '../../src/cli/live-lines.js';
import { terminalStyle } from '../../src/cli/terminal-style.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe('warnings about a package\'s own structure', function () {
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/lib', 'packages/app'] }),
      'packages/lib/package.json': json({ name: '@r/lib', version: '1.0.0', exports: { './a': './a.ts', './b': './b.ts', './c': './c.ts' } }),
      'packages/lib/registry.cjs': 'exports.registry = new Map();\n',
      'packages/lib/format.cjs': "exports.format = (s) => '[' + s + ']';\n",
      'packages/lib/a.ts': "import { registry } from './registry.cjs';\nimport { format } from './format.cjs';\nexport const define = (k: string, v: unknown) => registry.set(format(k), v);\n",
      'packages/lib/b.ts': "import { registry } from './registry.cjs';\nimport { format } from './format.cjs';\nexport const lookup = (k: string) => registry.get(format(k));\n",
      'packages/lib/c.ts': "import { define } from './a.ts';\nimport { registry } from './registry.cjs';\nexport const both = () => (define('x', 1), registry.size);\n",
      'packages/app/package.json': json({ name: '@r/app', version: '1.0.0', exports: { './main': './main.ts' }, dependencies: { '@r/lib': '1.0.0' } }),
      'packages/app/main.ts': "import { lookup } from '../lib/b.ts';\nexport const main = () => lookup('x');\n",
    });
    service = await serve(root);
  });
  after(async function () {
    await service?.close();
  });

  it('counts them per package and kind in /state, beside each module\'s own warnings', async function () {
    const report = await service.report();
    expect(report.modules.map((m) => [m.specifier, m.status, (m.warnings ?? []).map((w) => w.kind)])).to.deep.equal([
      ['@r/lib/a', 'valid', ['HELPER_SHARED', 'HELPER_SHARED']],
      ['@r/lib/b', 'valid', ['HELPER_SHARED', 'HELPER_SHARED']],
      ['@r/lib/c', 'valid', ['MODULE_BOUNDARY_CROSSED', 'HELPER_SHARED']],
      ['@r/app/main', 'valid', ['MODULE_BOUNDARY_CROSSED']],
    ]);
    const state = (await service.get('/state')).json<{ warningGroups: unknown[] }>();
    expect(state.warningGroups).to.deep.equal([
      { package: '@r/lib', kind: 'HELPER_SHARED', count: 5, modules: 3 },
      { package: '@r/lib', kind: 'MODULE_BOUNDARY_CROSSED', count: 1, modules: 1 },
    ]);
  });

  it('tells them on the terminal one line per package and kind, and a warning across packages on its own', async function () {
    const state = service.internals.store.getState();
    const lines = linesBetween(untoldSnapshot(state), snapshotOf(state), state, { style: terminalStyle(false), readSource: () => null, sinceChange: null });
    const warned = lines.filter((line) => line.level === 'warn').map((line) => line.text.split('\n')[0]);
    expect(warned).to.deep.equal([
      '▲ @r/lib: 5 HELPER_SHARED warnings about its own structure, in 3 modules (each on /state and the dashboard)',
      '▲ @r/lib: a MODULE_BOUNDARY_CROSSED warning about its own structure, in 1 module (each on /state and the dashboard)',
      '▲ [MODULE_BOUNDARY_CROSSED] "../lib/b.ts" is the entry of the public module @r/lib/b: it is imported as that module, never bundled; write import ... from "@r/lib/b"  @r/app/main',
    ]);
    // Told once: the same state again tells nothing.
    expect(linesBetween(snapshotOf(state), snapshotOf(state), state, { style: terminalStyle(false), readSource: () => null, sinceChange: null })).to.deep.equal([]);
  });
});
