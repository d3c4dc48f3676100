// Starting the real service in-process on port 0, and stopping every one a test started.
import development from '../../src/development/index.js';
import { startService, type Service, type ServiceOptions } from '../../src/service.js';
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
