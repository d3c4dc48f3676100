// Reading the workspace for `core dist` with the deep imports of packages without `exports`
// that a build of its modules finds, until none is new.
import { expect } from 'chai';
import { readWithDeepImports } from '../../src/dist/deep-imports.js';
import type { ModuleModel, PackageModel, WorkspaceModel } from '../../src/workspace/model.js';
import { moduleModel, workspaceModel } from '../helpers/models.js';

const packages: PackageModel[] = [
  { name: '@t/app', version: '1.0.0', dir: 'app', dependencies: { '@t/open': '*' } },
  { name: '@t/open', version: '1.0.0', dir: 'open', dependencies: {}, withoutExports: true },
  { name: '@t/plain', version: '1.0.0', dir: 'plain', dependencies: {} },
];
const deepModule = (specifier: string): ModuleModel => ({ ...moduleModel('deep'), specifier, package: '@t/open', subpath: specifier.slice('@t/open/'.length) });

describe('readWithDeepImports', () => {
  it('reads again with the deep imports found, scans each module once, and stops when none is new', async () => {
    const reads: string[][] = [];
    const read = (deep: readonly string[]): WorkspaceModel => {
      reads.push([...deep]);
      return workspaceModel([moduleModel('one'), ...deep.map(deepModule)], { packages });
    };
    const scanned: string[][] = [];
    const imports: Record<string, string[]> = {
      '@t/app/one': ['@t/open/a.js', '@t/open', '@t/plain/x.js', 'lit/decorators.js'],
      '@t/open/a.js': ['@t/open/b.js'],
    };
    const workspace = await readWithDeepImports(read, async (_workspace, modules) => {
      scanned.push(modules.map((m) => m.specifier));
      return modules.flatMap((m) => imports[m.specifier] ?? []);
    });
    expect(reads).to.deep.equal([[], ['@t/open/a.js']]);
    // Only modules of packages that declare a package without exports can import one deeply.
    expect(scanned).to.deep.equal([['@t/app/one']]);
    expect(workspace.modules.map((m) => m.specifier)).to.deep.equal(['@t/app/one', '@t/open/a.js']);
  });

  it('builds nothing when no package lacks exports', async () => {
    let built = false;
    const workspace = workspaceModel([moduleModel('one')]);
    expect(await readWithDeepImports(() => workspace, async () => ((built = true), []))).to.equal(workspace);
    expect(built).to.equal(false);
  });
});
