// Extensions (README "The programmatic API"): found by specifier or given loaded, each set up in turn
// with the one host the service gives them all.
import type { ExtensionHost, ServiceExtension } from '../extension.js';
import { resolveModule, type ResolvedModule } from '../load-module.js';

/** Sets up each extension in order; returns their names. */
export async function setUpExtensions(wanted: readonly (string | ServiceExtension)[], host: ExtensionHost): Promise<string[]> {
  const loaded: string[] = [];
  for (const entry of wanted) {
    const extension = typeof entry === 'string' ? await loadExtension(entry, host.root) : entry;
    await extension.setup(host);
    loaded.push(extension.name);
  }
  return loaded;
}

async function loadExtension(specifier: string, root: string): Promise<ServiceExtension> {
  let resolved: ResolvedModule;
  try {
    resolved = resolveModule(specifier, root);
  } catch (error) {
    throw new Error(`the extension ${specifier} (CORE_SERVICE_EXTENSIONS) cannot be resolved from the workspace or from @core-js/packages: ${(error as Error).message}`);
  }
  const module = (await resolved.load()) as { default?: ServiceExtension } & Partial<ServiceExtension>;
  const extension = module.default ?? (module as ServiceExtension);
  if (typeof extension?.setup !== 'function') throw new Error(`the extension ${specifier} exports no setup(host) (a default export { name, setup })`);
  return { name: extension.name ?? specifier, setup: extension.setup.bind(extension) };
}
