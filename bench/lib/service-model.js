// The workspace as the service reads it, and the esbuild options it builds a module with:
// the baselines compile the same entries with the same plugins, loaders and output settings,
// through the service's own code (dist/bundlers/esbuild-engine.js, `esbuildOptions`).
import { distModule } from './paths.js';

const { readWorkspace } = await import(distModule('workspace/read-workspace.js'));
const { createFileHashes } = await import(distModule('io/file-hashes.js'));
const { toBundleTarget } = await import(distModule('io/build-runner.js'));
const { esbuildOptions } = await import(distModule('bundlers/esbuild-engine.js'));
const { developmentVariant, productionVariant } = await import(distModule('workspace/variant.js'));

export { developmentVariant, productionVariant, esbuildOptions };

// The `refuse` option of the ts bundler (src/bundlers/ts.ts); the esbuild bundler has none.
const TS_REFUSE = { filter: /\.jsx$/, reason: 'the ts bundler compiles .ts, .tsx, .js and .css sources; select the esbuild bundler for .jsx' };
const TS_BUNDLER = '@core-js/packages/bundlers/ts';
const ESBUILD_BUNDLER = '@core-js/packages/bundlers/esbuild';

export function readModel(root) {
  return readWorkspace(createFileHashes(root));
}

/** The bundle targets of the modules with an entry, in the order of the workspace model. */
export function moduleTargets(model, filter = () => true) {
  return model.modules.filter((module) => module.entry && filter(module)).map((module) => ({ module, target: toBundleTarget(module) }));
}

/** The options the service's bundler of `modules` (all with one bundler) uses for one build of them. */
export function optionsFor(root, modules, variant) {
  const specifiers = new Set(modules.map(({ module }) => module.bundler.specifier));
  if (specifiers.size !== 1) throw new Error(`one bundler per build; got ${[...specifiers].join(', ')}`);
  const [specifier] = specifiers;
  if (specifier !== TS_BUNDLER && specifier !== ESBUILD_BUNDLER) throw new Error(`the baseline knows the built-in bundlers only; got ${specifier}`);
  return esbuildOptions(root, modules.map(({ target }) => target), variant, specifier === TS_BUNDLER ? TS_REFUSE : undefined);
}

/** What children/esbuild-all.js builds: the same entries, bundler options and variant, as JSON. */
export function buildJob(root, modules, variant) {
  const specifiers = new Set(modules.map(({ module }) => module.bundler.specifier));
  if (specifiers.size !== 1) throw new Error(`one bundler per build; got ${[...specifiers].join(', ')}`);
  const refuse = [...specifiers][0] === TS_BUNDLER ? { filter: TS_REFUSE.filter.source, reason: TS_REFUSE.reason } : undefined;
  return { root, targets: modules.map(({ target }) => target), variant, refuse };
}

/** The code esbuild wrote for entry `index` of a build with `optionsFor`. */
export function codeOf(result, index = 0) {
  const file = (result.outputFiles ?? []).find((output) => output.path.endsWith(`__core_${index}.js`));
  return file ? file.contents : null;
}
