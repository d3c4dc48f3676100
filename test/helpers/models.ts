// Small workspace models and event folds for store and stream tests.
import { EVENT_FORMAT, type CoreEvent, type Fact } from '../../src/store/events.js';
import { reducer } from '../../src/store/reducer.js';
import { initialState, type ServiceState } from '../../src/store/state.js';
import type { ModuleModel, WorkspaceModel } from '../../src/workspace/model.js';

/** A buildable web module of the package `@t/app` 1.0.0 in `app/`, unless `overrides` say otherwise. */
export function moduleModel(subpath: string, overrides: Partial<ModuleModel> = {}): ModuleModel {
  const pkg = overrides.package ?? '@t/app';
  const dir = `${pkg.split('/')[1]}/${subpath}`;
  return {
    specifier: `${pkg}/${subpath}`,
    package: pkg,
    version: '1.0.0',
    subpath,
    dir,
    entry: `${dir}/index.ts`,
    platforms: ['web'],
    bundler: { name: 'ts', specifier: '@core-js/packages/bundlers/ts' },
    assets: [],
    diagnostics: [],
    ...overrides,
  };
}

/** A workspace holding `modules`, with a package for each package they name. */
export function workspaceModel(modules: ModuleModel[], overrides: Partial<WorkspaceModel> = {}): WorkspaceModel {
  const names = [...new Set(['@t/app', ...modules.map((m) => m.package)])];
  return {
    preview: null,
    packages: names.map((name) => ({ name, version: modules.find((m) => m.package === name)?.version ?? '1.0.0', dir: name.split('/')[1]!, dependencies: {} })),
    modules,
    selection: null,
    diagnostics: [],
    sources: { 'core.json': 'core-1', 'app/package.json': 'package-1' },
    ...overrides,
  };
}

export const TIME = '2025-01-01T00:00:00.000Z';

/** Facts stamped with consecutive seq numbers from `first`, as the store would. */
export function stamp(facts: Fact[], first = 1): CoreEvent[] {
  return facts.map((fact, index) => ({ ...fact, seq: first + index, time: TIME }) as CoreEvent);
}

/** The state after `facts`, from the initial state (or `from`). */
export function fold(facts: Fact[], from: ServiceState = initialState()): ServiceState {
  return stamp(facts, from.seq + 1).reduce(reducer, from);
}

export const started: Extract<Fact, { type: 'service.started' }> = { type: 'service.started', format: EVENT_FORMAT, root: '/w', service: 'test' };

/** A successful build of one module, its entry hashed as given. */
export function succeeded(build: number, module: ModuleModel, variant: string, entryHash: string, extra: Partial<Extract<Fact, { type: 'build.succeeded' }>> = {}): Fact {
  return {
    type: 'build.succeeded',
    build,
    module: module.specifier,
    variant,
    outputs: { code: { hash: `code-${build}`, size: 10 }, styles: null },
    imports: [],
    inputs: { [module.entry!]: entryHash },
    ...extra,
  };
}

export function startedBuild(build: number, variant: string, modules: { module: ModuleModel; generation: number }[]): Fact {
  return { type: 'build.started', build, variant, bundler: 'ts', reason: 'startup', modules: modules.map(({ module, generation }) => ({ module: module.specifier, generation })) };
}
