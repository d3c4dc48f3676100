// Starting the real service in-process on port 0, and stopping every one a test started.
import development from '../../src/development/index.js';
import { startService, type EffectDeps, type Service, type ServiceOptions } from '../../src/service.js';
import type { WatcherLike } from '../../src/io/tree-watcher.js';
import { get } from './http.js';

const running = new Set<Service>();

export async function serve(root: string, options: ServiceOptions = {}): Promise<Service & { get: (path: string, headers?: Record<string, string>, method?: string) => ReturnType<typeof get> }> {
  const service = await startService({ port: 0, logger: () => {}, extensions: [development], cdnOrigin: 'https://cdn.test', ...options, root });
  running.add(service);
  return Object.assign(service, { get: (path: string, headers?: Record<string, string>, method?: string) => get(service.url, path, headers, method) });
}

export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((service) => service.close()));
  running.clear();
}

/**
 * The watcher of a service, its first walk awaited: `walked` settles once the whole tree is
 * watched, and `watcher` may wrap what the watch effect is given (the tree watcher itself unless).
 */
export function awaitedWalk(watcher: (made: WatcherLike) => WatcherLike = (made) => made): {
  walked: Promise<void>;
  deps: (deps: EffectDeps) => EffectDeps;
} {
  let done!: () => void;
  const walked = new Promise<void>((resolve) => (done = resolve));
  return {
    walked,
    deps: (deps) => ({
      ...deps,
      walkQuietMs: 0,
      createWatcher: (...args) => {
        const made = deps.createWatcher(...args);
        made.on('ready', () => done());
        return watcher(made);
      },
    }),
  };
}
