// Bundlers are modules loaded by specifier (README "Workspaces"): resolved from the
// workspace first, then from this package, so `@core-js/packages/bundlers/ts` always resolves.
// The resolver (`resolveModule` of src/load-module.ts) is passed in: it imports the package's
// own bundlers, which import this layer (ARCHITECTURE.md "Layers").
import { bundlerKey, type BundlerRef } from '../workspace/model.js';
import { BuildCancelled, BundlerUnavailable, type Bundler, type BundlerOptions, type CreateBundler } from './types.js';

/** Finds a module by specifier from `root` and loads it on demand. */
export type ResolveModule = (specifier: string, root: string) => { load(): Promise<unknown> };

export interface BundlerRegistry {
  get(ref: BundlerRef): Promise<Bundler>;
  /** The bundler once loaded, else undefined: a build then calls it in the same turn, without waiting on `get`. */
  loaded?(ref: BundlerRef): Bundler | undefined;
  /** Tells every loaded bundler of files just saved (`Bundler.anticipate`). */
  anticipate?(saved: readonly string[], bytesOf: (file: string) => Uint8Array | undefined): void;
  dispose(): Promise<void>;
}

/** `links`: the tree watcher's word, handed to each bundler (`BundlerOptions`); absent where no watcher runs (`core dist`). */
export function createBundlerRegistry(root: string, resolveModule: ResolveModule, links?: Pick<BundlerOptions, 'noLinkLeadsOut' | 'linkLeadsOut'>): BundlerRegistry {
  const bundlers = new Map<string, Promise<Bundler>>();
  const ready = new Map<string, Bundler>();
  const settled: Bundler[] = [];
  // A bundler loaded once the registry is disposed is disposed at once (its builds would hold
  // esbuild's process past the service's close: context-pool.ts), and `dispose` waits for the loads.
  let disposed = false;
  const loading = new Set<Promise<unknown>>();

  async function load(ref: BundlerRef): Promise<Bundler> {
    let resolved: ReturnType<ResolveModule>;
    try {
      resolved = resolveModule(ref.specifier, root);
    } catch (error) {
      // Node's message goes on with its "Require stack": the first line is the fact.
      const reason = ((error as Error).message ?? '').split('\n')[0];
      throw new BundlerUnavailable(`the bundler "${ref.name}" (${ref.specifier}) cannot be resolved from the workspace or from @core-js/packages (${reason})`);
    }
    const loaded = (await resolved.load()) as { createBundler?: CreateBundler; default?: { createBundler?: CreateBundler } };
    const create = loaded.createBundler ?? loaded.default?.createBundler;
    if (typeof create !== 'function') throw new BundlerUnavailable(`the bundler module ${ref.specifier} does not export createBundler(options)`);
    const bundler = create({ root, ...(ref.processors ? { processors: ref.processors } : {}), ...links });
    if (disposed) {
      await bundler.dispose();
      throw new BuildCancelled();
    }
    settled.push(bundler);
    return bundler;
  }

  return {
    get(ref) {
      const key = bundlerKey(ref);
      let bundler = bundlers.get(key);
      if (!bundler) {
        if (disposed) return Promise.reject(new BuildCancelled());
        bundler = load(ref);
        const done = bundler.then(
          () => {},
          () => {},
        );
        loading.add(done);
        void done.then(() => loading.delete(done));
        // A failed load is retried on the next build: the workspace may have installed it since.
        bundler.then((loaded) => void ready.set(key, loaded), () => bundlers.delete(key));
        bundlers.set(key, bundler);
      }
      return bundler;
    },
    loaded: (ref) => ready.get(bundlerKey(ref)),
    anticipate(saved, bytesOf) {
      for (const bundler of ready.values()) bundler.anticipate?.(saved, bytesOf);
    },
    async dispose() {
      disposed = true;
      await Promise.all(loading);
      await Promise.all(settled.map((bundler) => bundler.dispose()));
    },
  };
}
