// Runs one build job: loads the bundler, compiles, stores the outputs by content hash, hashes
// the inputs, and reports one `build.succeeded` or `build.failed` per module. Unsubscribing
// cancels the build. A failure of the bundler itself becomes `build.failed` diagnostics.
import { Observable } from 'rxjs';
import type { BundlerRegistry } from '../bundlers/registry.js';
import { BuildCancelled, BundlerUnavailable, type BundleResult, type BundleTarget, type RebuildHint, type WorkspaceBoundaries } from '../bundlers/types.js';
import type { OutputCache } from '../outputs/output-cache.js';
import { UNVERIFIED, type Fact, type InputHashes } from '../store/events.js';
import { locateImports } from '../workspace/checks.js';
import { bundlerFailed, diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import type { BundlerRef, ModuleModel } from '../workspace/model.js';
import { dirOf, isInside, normalizeRelative } from '../workspace/paths.js';
import { loadTsconfig, tsconfigPlaces } from '../workspace/tsconfig.js';
import { parseVariantKey } from '../workspace/variant.js';
import { MTIME_LAG_MS, type FileHashes, type Stamp } from './file-hashes.js';

export interface BuildJob {
  build: number;
  variant: string;
  bundler: BundlerRef;
  /** One module built again incrementally, or several in one pass. */
  incremental: boolean;
  /** The module boundaries of the workspace the job was planned in. */
  workspace?: WorkspaceBoundaries;
  /**
   * `manifest`: the package.json that selects the bundler, named when the bundler cannot be loaded.
   * `previousCode`: the content hash of the code of the build `previousInputs` are of.
   */
  modules: { module: ModuleModel; generation: number; previousInputs: InputHashes | null; previousCode?: string | null; manifest?: string; packageDir?: string }[];
  /** The shared files of each package the state knows of (README "Shared files"): package -> file -> internal specifier. */
  shared?: Record<string, Record<string, string>>;
}

/** One job: its results, all at once (one change of state), then complete; never in the turn it was subscribed in (its start is recorded after). */
export type RunBuild = (job: BuildJob) => Observable<readonly Fact[]>;

export interface BuildRunnerDeps {
  registry: BundlerRegistry;
  outputs: OutputCache;
  hashes: FileHashes;
  now?: () => number;
}

export const toBundleTarget = (module: ModuleModel, workspace?: WorkspaceBoundaries, packageDir?: string, shared?: Record<string, string>): BundleTarget => ({
  specifier: module.specifier,
  subpath: module.subpath,
  dir: module.dir,
  entry: module.entry!,
  assets: module.assets,
  platforms: module.platforms,
  ...(module.define ? { define: module.define } : {}),
  ...(workspace ? { workspace } : {}),
  ...(packageDir !== undefined ? { package: { name: module.package, dir: packageDir } } : {}),
  ...(shared && Object.keys(shared).length > 0 ? { shared } : {}),
});

export function createBuildRunner(deps: BuildRunnerDeps): RunBuild {
  const now = deps.now ?? Date.now;
  return (job) =>
    new Observable<readonly Fact[]>((subscriber) => {
      const abort = new AbortController();
      let settled = false;
      void run(job, abort.signal).then(
        (facts) => {
          if (abort.signal.aborted) return;
          settled = true;
          subscriber.next(facts);
          subscriber.complete();
        },
        (error) => {
          settled = true;
          if (abort.signal.aborted || (error instanceof Error && error.name === 'BuildCancelled')) return subscriber.complete();
          // The bundler could not run at all: every module of the job says why.
          const message = error instanceof Error ? error.message : String(error);
          subscriber.next(
            job.modules.map(({ module, previousInputs, manifest }): Fact => ({
              type: 'build.failed',
              build: job.build,
              module: module.specifier,
              variant: job.variant,
              errors: [
                error instanceof BundlerUnavailable
                  ? diagnostic('BUNDLE_ERROR', `${module.specifier} cannot be built: ${message}; install it in the workspace, or correct "core.bundler" or "bundlers" in ${manifest ?? 'its package.json'}`, { file: manifest ?? module.entry ?? undefined })
                  : bundlerFailed(job.bundler.name, message, module.entry),
              ],
              imports: [],
              inputs: { ...previousInputs, ...hashInputs([module.entry!, `${module.dir}/`], {}, 0) },
            })),
          );
          subscriber.complete();
        },
      );
      // Only a job still running is cancelled: aborting a finished one made an AbortError (and
      // its stack) at the end of every build, in the moment its answer was being sent.
      return () => {
        if (!settled) abort.abort();
      };
    });

  async function run(job: BuildJob, signal: AbortSignal): Promise<Fact[]> {
    const variant = parseVariantKey(job.variant);
    if (!variant) throw new Error(`unknown variant ${job.variant}`);
    // Inputs known from the last build are hashed before this one reads them: a change
    // during the build then shows as a difference afterwards, never as a false match.
    const before: Record<string, Stamp> = {};
    for (const { previousInputs } of job.modules) {
      for (const path of Object.keys(previousInputs ?? {})) before[path] ??= deps.hashes.stamp(path);
    }
    const startedAt = now();
    const bundler = deps.registry.loaded?.(job.bundler) ?? (await deps.registry.get(job.bundler));
    const targets = job.modules.map(({ module, packageDir }) => toBundleTarget(module, job.workspace, packageDir, job.shared?.[module.package]));
    const results = job.incremental && targets.length === 1
      ? [await bundler.rebuild(targets[0]!, variant, signal, since(job.modules[0]!, before))]
      : await bundler.bundle(targets, variant, signal);
    if (signal.aborted) throw new BuildCancelled();
    return results.map((result, index) => toFact(job, withTsconfigs(result, job.modules[index]!.module), job.modules[index]!.previousInputs, before, startedAt, targets[index]!.shared));
  }

  // The tsconfig files that decide how a module compiles are inputs of its build (README
  // "tsconfig.json"): the nearest one above its entry with its `extends` chain, and every place
  // a nearer one could appear, so that an edit, an addition or a removal builds it again.
  function withTsconfigs(result: BundleResult, module: ModuleModel): BundleResult {
    if (!module.entry) return result;
    const places = tsconfigPlaces(dirOf(module.entry));
    const found = places.findIndex((file) => deps.hashes.readText(file) !== null);
    const nearest = found === -1 ? null : places[found]!;
    const configs = found === -1 ? places : places.slice(0, found + 1);
    if (nearest !== null) {
      const loaded = loadTsconfig(nearest, {
        read: (file) => deps.hashes.readText(file)?.text ?? null,
        resolvePackage: (specifier, from) => {
          for (let at = from; ; at = dirOf(at)) {
            const base = at === '.' ? `node_modules/${specifier}` : `${at}/node_modules/${specifier}`;
            for (const file of [base, `${base}.json`, `${base}/tsconfig.json`]) if (deps.hashes.readText(file) !== null) return deps.hashes.realPath(file) ?? file;
            if (at === '.') return null;
          }
        },
      });
      configs.push(...loaded.files);
    }
    return { ...result, inputs: [...new Set([...result.inputs, ...configs])].sort() };
  }

  // What changed since the module's last build, for a bundler that can then do less.
  function since({ previousInputs, previousCode }: BuildJob['modules'][number], before: Record<string, Stamp>): RebuildHint | undefined {
    if (!previousInputs) return undefined;
    const inputs = Object.keys(previousInputs);
    return { inputs, changed: inputs.filter((path) => before[path]?.hash !== previousInputs[path] || previousInputs[path] === UNVERIFIED), code: previousCode ?? null };
  }

  function toFact(job: BuildJob, result: BundleResult, previousInputs: InputHashes | null, before: Record<string, Stamp>, startedAt: number, sharedFiles?: Record<string, string>): Fact {
    const imports = locateImports(result.imports, (file) => deps.hashes.readText(file)?.text ?? null);
    const base = { build: job.build, module: result.specifier, variant: job.variant, imports };
    if (result.errors.length > 0 || !result.code) {
      // What could fix a failure includes what the module read when it last built, and the
      // files its diagnostics name: esbuild reports `No matching export in "lib/x.ts"` at the
      // import, and the fix is in lib/x.ts, which a failed build lists nowhere else.
      const paths = [...new Set([...Object.keys(previousInputs ?? {}), ...result.inputs, ...namedFiles(result.errors)])];
      return { type: 'build.failed', ...base, errors: result.errors, inputs: hashInputs(paths, before, startedAt) };
    }
    const chunks = result.chunks ? Object.fromEntries(Object.entries(result.chunks).map(([specifier, code]) => [specifier, deps.outputs.put(code)])) : undefined;
    const outputs = { code: deps.outputs.put(result.code), styles: result.styles ? deps.outputs.put(result.styles) : null, ...(chunks ? { chunks } : {}) };
    // The shared files it was asked to import: a copy of one it still made cannot be avoided (README "Shared files").
    const shared = Object.keys(sharedFiles ?? {});
    return { type: 'build.succeeded', ...base, outputs, inputs: hashInputs(result.inputs, before, startedAt), ...(result.warnings?.length ? { warnings: result.warnings } : {}), ...(shared.length > 0 ? { shared } : {}) };
  }

  function namedFiles(errors: readonly Diagnostic[]): string[] {
    const named: string[] = [];
    for (const error of errors) {
      for (const [, name] of error.message.matchAll(/"([^"\n]+)"/g)) {
        const relative = normalizeRelative(name!);
        if (relative === null || relative === '.' || !isInside(relative)) continue;
        // A file that exists, readable or not ("Cannot read file ...: permission denied").
        const stamp = deps.hashes.stamp(relative);
        if (stamp.hash !== null || stamp.mtimeMs > 0) named.push(relative);
      }
    }
    return named;
  }

  // Inputs first seen by this build are hashed after it; one modified since it started may
  // have been read in either version, so it is marked unverified and the module builds again.
  // So is a known input written during the build (its mtime moved), even with the content it
  // had before: an editor's save truncates the file first, and the build may have read it empty.
  function hashInputs(paths: readonly string[], before: Record<string, Stamp>, startedAt: number): InputHashes {
    const inputs: InputHashes = {};
    for (const path of paths) {
      if (path in before) {
        const known = before[path]!;
        inputs[path] = known.hash !== null && deps.hashes.stamp(path).mtimeMs !== known.mtimeMs ? UNVERIFIED : known.hash;
        continue;
      }
      const stamp = deps.hashes.stamp(path);
      // On a file system of whole seconds, a write during the build is stamped up to a second earlier.
      inputs[path] = stamp.hash !== null && startedAt > 0 && stamp.mtimeMs >= startedAt - MTIME_LAG_MS - deps.hashes.granularityMs() ? UNVERIFIED : stamp.hash;
    }
    return inputs;
  }
}
