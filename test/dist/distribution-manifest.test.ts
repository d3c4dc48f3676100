// The pure parts of `core dist` after the build: judging a module and core-distribution.json.
import { expect } from 'chai';
import type { BundleResult } from '../../src/bundlers/types.js';
import { distributionManifest } from '../../src/dist/distribution-manifest.js';
import { judgeModule, type ModuleOutcome } from '../../src/dist/judge-module.js';
import { staleOutputs } from '../../src/dist/stale-outputs.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { diagnostic } from '../../src/workspace/diagnostics.js';
import { moduleOf, workspaceOf } from './models.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const built = (specifier: string, overrides: Partial<BundleResult> = {}): BundleResult => ({
  specifier,
  code: bytes(`export const name = ${JSON.stringify(specifier)};`),
  styles: null,
  inputs: [],
  imports: [],
  errors: [],
  ...overrides,
});

describe('judgeModule', () => {
  it('turns a built module into its code, stylesheet and assets, each with its content hash and size', () => {
    const module = moduleOf('@acme/app/widgets/card', { version: '2.0.0', assets: ['icons/star.svg'] });
    const workspace = workspaceOf([module]);
    const outcome = judgeModule(workspace, module, 'browser', built(module.specifier, { styles: bytes('.card{color:red}') }), [
      { file: 'icons/star.svg', content: bytes('<svg/>') },
    ]);
    expect(outcome.status).to.equal('written');
    if (outcome.status !== 'written') return;
    expect(outcome.files.map(({ path, kind, hash, size }) => ({ path, kind, hash, size }))).to.deep.equal([
      { path: '@acme/app@2.0.0/modules/widgets/card.js', kind: 'code', hash: contentHash(built(module.specifier).code!), size: built(module.specifier).code!.byteLength },
      { path: '@acme/app@2.0.0/styles/widgets/card.css', kind: 'styles', hash: contentHash('.card{color:red}'), size: 16 },
      { path: '@acme/app@2.0.0/assets/widgets/card/icons/star.svg', kind: 'asset', hash: contentHash('<svg/>'), size: 6 },
    ]);
  });

  it('refuses a module whose build failed, with the bundler errors', () => {
    const module = moduleOf('@acme/app/main');
    const error = diagnostic('BUNDLE_ERROR', 'Could not resolve "./missing.css"', { file: 'app/main/styles.css', line: 1, column: 9 });
    const outcome = judgeModule(workspaceOf([module]), module, 'browser', built(module.specifier, { code: null, errors: [error] }), []);
    expect(outcome).to.deep.equal({ status: 'invalid', module, diagnostics: [error] });
  });

  it('applies the dependency checks of /state to the imports the build found', () => {
    const module = moduleOf('@acme/app/main');
    const lib = moduleOf('@acme/lib/format', { version: '1.0.0' });
    const workspace = workspaceOf([module, lib], [{ name: '@acme/app', dependencies: { '@acme/lib': '^2.0.0' } }]);
    const outcome = judgeModule(workspace, module, 'browser', built(module.specifier, { imports: [{ specifier: '@acme/lib/format', file: 'app/main/index.ts' }, { specifier: 'node:fs', file: 'app/main/index.ts' }] }), []);
    expect(outcome.status).to.equal('invalid');
    if (outcome.status !== 'invalid') return;
    expect(outcome.diagnostics.map((d) => d.kind)).to.deep.equal(['DEPENDENCY_INCOMPATIBLE', 'PREVIEW_BUILTIN']);
  });

  it('refuses a module whose declared asset is missing or leaves its package', () => {
    const module = moduleOf('@acme/app/main', { assets: ['logo.svg'] });
    const outcome = judgeModule(workspaceOf([module]), module, 'browser', built(module.specifier), [{ file: 'logo.svg', content: null }]);
    expect(outcome.status).to.equal('invalid');
    if (outcome.status !== 'invalid') return;
    expect(outcome.diagnostics).to.have.length(1);
    expect(outcome.diagnostics[0]).to.include({ kind: 'BUNDLE_ERROR', file: 'app/main/logo.svg' });
  });
});

describe('distributionManifest', () => {
  const main = moduleOf('@acme/app/main', { assets: ['logo.svg'] });
  const format = moduleOf('@acme/lib/format', { version: '1.2.0' });
  const server = moduleOf('@acme/lib/server', { version: '1.2.0', platforms: ['node'] });
  const broken = moduleOf('@acme/app/broken');
  const workspace = workspaceOf([main, broken, format, server], [{ name: '@acme/app', dependencies: { '@acme/lib': '^1.0.0', lit: '3.1.0' } }]);
  const problem = diagnostic('BUNDLE_ERROR', 'Could not resolve "./gone.ts"', { file: 'app/broken/index.ts', line: 1, column: 8 });
  const outcomes: ModuleOutcome[] = [
    judgeModule(workspace, server, 'node', built(server.specifier, { imports: [{ specifier: 'node:path', file: 'lib/server/index.ts' }] }), []),
    judgeModule(
      workspace,
      main,
      'browser',
      built(main.specifier, { styles: bytes('p{}'), imports: [{ specifier: '@acme/lib/format', file: 'app/main/index.ts' }, { specifier: 'lit', file: 'app/main/index.ts' }, { specifier: 'lit/html.js', file: 'app/main/index.ts' }] }),
      [{ file: 'logo.svg', content: bytes('<svg/>') }],
    ),
    { status: 'invalid', module: broken, diagnostics: [problem] },
    judgeModule(workspace, format, 'browser', built(format.specifier), []),
  ];
  const manifest = distributionManifest(workspace, outcomes);

  it('holds an import map of the browser modules, relative to the output directory', () => {
    expect(manifest.importMap).to.deep.equal({
      imports: {
        '@acme/app/main': './@acme/app@1.0.0/modules/main.js',
        '@acme/lib/format': './@acme/lib@1.2.0/modules/format.js',
      },
    });
  });

  it('lists every output written, ordered by path, with its module, hash and size', () => {
    expect(manifest.outputs.map((o) => [o.path, o.kind, o.module])).to.deep.equal([
      ['@acme/app@1.0.0/assets/main/logo.svg', 'asset', '@acme/app/main'],
      ['@acme/app@1.0.0/modules/main.js', 'code', '@acme/app/main'],
      ['@acme/app@1.0.0/styles/main.css', 'styles', '@acme/app/main'],
      ['@acme/lib@1.2.0/modules/format.js', 'code', '@acme/lib/format'],
      ['@acme/lib@1.2.0/modules/server.js', 'code', '@acme/lib/server'],
    ]);
    const written = outcomes.flatMap((o) => (o.status === 'written' ? o.files : []));
    for (const output of manifest.outputs) {
      const file = written.find((f) => f.path === output.path)!;
      expect(output.hash).to.equal(contentHash(file.content));
      expect(output.size).to.equal(file.content.byteLength);
    }
  });

  it('lists the modules written with their targets, and the invalid ones with their diagnostics', () => {
    expect(manifest.modules.map((m) => [m.specifier, m.target])).to.deep.equal([
      ['@acme/app/main', 'browser'],
      ['@acme/lib/format', 'browser'],
      ['@acme/lib/server', 'node'],
    ]);
    expect(manifest.invalid).to.deep.equal([{ specifier: '@acme/app/broken', diagnostics: [problem] }]);
  });

  it('names the bare imports from outside the workspace that a page must map itself, not built-ins', () => {
    expect(manifest.external).to.deep.equal([
      { specifier: 'lit', package: 'lit', range: '3.1.0', importedBy: ['@acme/app/main'] },
      { specifier: 'lit/html.js', package: 'lit', range: '3.1.0', importedBy: ['@acme/app/main'] },
    ]);
  });

  it('is the same whatever order the builds finished in', () => {
    expect(distributionManifest(workspace, [...outcomes].reverse())).to.deep.equal(manifest);
  });
});

describe('staleOutputs', () => {
  const next = { outputs: [{ path: '@acme/app@1.1.0/modules/main.js' }] } as Parameters<typeof staleOutputs>[1];

  it('names what the previous manifest listed and the next one does not', () => {
    const previous = { outputs: [{ path: '@acme/app@1.0.0/modules/main.js' }, { path: '@acme/app@1.1.0/modules/main.js' }, { path: '@acme/app@1.0.0/styles/main.css' }] };
    expect(staleOutputs(previous, next).map((output) => output.path)).to.deep.equal(['@acme/app@1.0.0/modules/main.js', '@acme/app@1.0.0/styles/main.css']);
  });

  it('never names a path outside the output directory, the manifest itself, or anything of an unknown file', () => {
    const previous = { outputs: [{ path: '../outside.js' }, { path: '/etc/passwd' }, { path: 'a/../../b' }, { path: '.' }, { path: 'core-distribution.json' }, { path: 42 }, null] };
    expect(staleOutputs(previous, next)).to.deep.equal([]);
    expect(staleOutputs(null, next)).to.deep.equal([]);
    expect(staleOutputs({ outputs: 'all' }, next)).to.deep.equal([]);
    expect(staleOutputs([1, 2], next)).to.deep.equal([]);
  });
});
