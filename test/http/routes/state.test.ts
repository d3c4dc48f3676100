// `/state`'s JSON: written from the report's parts, each module's line serialized once, and
// still exactly what `JSON.stringify` of the whole report gives.
import { expect } from 'chai';
import type { Fact } from '../../../src/store/events.js';
import { selectReport } from '../../../src/store/selectors.js';
import { reportJson } from '../../../src/http/routes/state.js';
import { diagnostic } from '../../../src/workspace/diagnostics.js';
import { fold, moduleModel, started, startedBuild, succeeded, workspaceModel } from '../../helpers/models.js';

const DEV = 'browser.development';
const one = moduleModel('one');
const two = moduleModel('two');
const lib = moduleModel('fmt', { package: '@t/lib' });

const workspace = workspaceModel([one, two, lib], {
  diagnostics: [diagnostic('MANIFEST_INVALID', 'far/package.json is not valid JSON', { file: 'far/package.json', line: 1, column: 2 })],
  warnings: [diagnostic('HELPER_SHARED', 'a hint "with quotes" and \u2028 a separator', { file: 'core.json' })],
});

// Every part a report can have: workspace diagnostics and warnings, module warnings and their
// groups, a failing effect, unwatched paths and the team cache's summary.
const facts: Fact[] = [
  started,
  { type: 'workspace.read', workspace },
  startedBuild(1, DEV, [{ module: one, generation: 1 }]),
  succeeded(1, one, DEV, 'e1', { warnings: [diagnostic('HELPER_SHARED', 'app/one/x.ts is bundled into 2 modules', { file: 'app/one/x.ts' })] }),
  startedBuild(2, DEV, [{ module: two, generation: 1 }]),
  { type: 'build.failed', build: 2, module: two.specifier, variant: DEV, errors: [diagnostic('BUNDLE_ERROR', 'Could not resolve "./gone"', { file: 'app/two/index.ts', line: 3, column: 8 })], imports: [{ specifier: 'node:fs', file: 'app/two/index.ts', line: 1, column: 1 }], inputs: {} },
  { type: 'effect.failed', effect: 'builds', message: 'boom', failures: 5, retryInMs: 1600 },
  { type: 'watch.unwatched', paths: { 'app/locked': 'EACCES' } },
  { type: 'cache.remote.restored', url: 'https://cache.example', asked: 3, builds: [], misses: { absent: 3 }, failures: {}, requests: 2, bytes: 10, ms: 4 },
];

describe('reportJson', () => {
  it('is exactly JSON.stringify of the report, with every part a report can have', () => {
    const report = selectReport(fold(facts));
    expect(Object.keys(report)).to.deep.equal(['diagnostics', 'warnings', 'warningGroups', 'modules', 'unwatched', 'remoteCache']);
    expect(reportJson(report)).to.equal(JSON.stringify(report));
  });

  it('is exactly JSON.stringify of the report after one module is built again, and of a bare one', () => {
    const state = fold(facts);
    const rebuilt = fold([{ type: 'files.changed', files: { 'app/one/index.ts': 'e2' }, source: 'watcher' }, startedBuild(3, DEV, [{ module: one, generation: 2 }]), succeeded(3, one, DEV, 'e2')], state);
    reportJson(selectReport(state));
    const report = selectReport(rebuilt);
    expect(report.modules[0]!.warnings).to.equal(undefined);
    expect(reportJson(report)).to.equal(JSON.stringify(report));
    const bare = selectReport(fold([started, { type: 'workspace.read', workspace: workspaceModel([one]) }]));
    expect(reportJson(bare)).to.equal(JSON.stringify(bare));
  });

  it('serializes again only the line of the module built again', () => {
    const state = fold(facts);
    reportJson(selectReport(state));
    const rebuilt = fold([{ type: 'files.changed', files: { 'app/one/index.ts': 'e2' }, source: 'watcher' }, startedBuild(3, DEV, [{ module: one, generation: 2 }]), succeeded(3, one, DEV, 'e2')], state);
    const report = selectReport(rebuilt);
    const stringify = JSON.stringify;
    const lines: string[] = [];
    JSON.stringify = ((value: unknown, ...rest: never[]) => {
      if ((report.modules as unknown[]).includes(value)) lines.push((value as { specifier: string }).specifier);
      return stringify(value, ...rest);
    }) as typeof JSON.stringify;
    try {
      reportJson(report);
    } finally {
      JSON.stringify = stringify;
    }
    expect(lines).to.deep.equal([one.specifier]);
  });
});
