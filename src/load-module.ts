// Extensions and bundlers are modules named by specifier (README "Workspaces", "Extensions"):
// resolved from the workspace first, then from this package. The package's own are imported
// as part of the running code, not as files of their own, when the specifier leads to this
// package's file: the command in one file (dist/core.cjs) then keeps one copy of the store,
// of RxJS and of everything else they share (ARCHITECTURE.md, "The command in one file").
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const OWN_MODULES: Readonly<Record<string, () => Promise<unknown>>> = {
  '@core-js/packages/development': () => import('./development/index.js'),
  '@core-js/packages/bundlers/esbuild': () => import('./bundlers/esbuild.js'),
  '@core-js/packages/bundlers/ts': () => import('./bundlers/ts.js'),
};

/** Loads the package's own modules (bin/load-bundle.js keeps their code in the bundle's code cache). */
export async function loadOwnModules(): Promise<void> {
  await Promise.all(Object.values(OWN_MODULES).map((load) => load()));
}

/** The specifiers of the package's own modules that `resolveModule` imports as part of the running code. */
export const OWN_MODULE_SPECIFIERS: readonly string[] = Object.keys(OWN_MODULES);

// The package resolves itself by name through its own `exports` (self-reference).
const resolveOwn = (specifier: string): string => pathToFileURL(createRequire(import.meta.url).resolve(specifier)).href;

// The command in one file is compiled by bin/load-bundle.js with V8's code cache, and Node 20
// then loses the `import()` of the code it holds ("A dynamic import callback was not
// specified"): the loader passes in its own, made in a module Node compiled itself (ARCHITECTURE.md,
// "The command in one file"). Everywhere else the name is not defined.
declare const bundleImport: ((url: string) => Promise<unknown>) | undefined;
const importUrl = (url: string): Promise<unknown> => (typeof bundleImport === 'function' ? bundleImport(url) : import(url));

/** A module found by specifier: its file, and how to import it. */
export interface ResolvedModule {
  url: string;
  load(): Promise<unknown>;
}

/**
 * Finds the module `specifier` names from `root`, then from this package; throws when neither
 * resolves it. A workspace with its own install of this package gets that install's files.
 */
export function resolveModule(specifier: string, root: string): ResolvedModule {
  let url: string;
  try {
    // A package's name is resolved as from a file in the workspace's `node_modules`: Node then
    // looks for it in each `node_modules` from the workspace up, as from the root, but reads no
    // `package.json` of a folder above it to find a package scope (it stops at `node_modules`),
    // and such a read is a blocking open that a FIFO there held for ever, before the service
    // listened (README "Files that are not files"). A path (`./gated-bundler.mjs`) is the root's
    // own, and its resolution reads no package scope.
    const from = isPath(specifier) ? path.join(root, 'package.json') : path.join(root, 'node_modules', 'resolve-from-workspace.js');
    url = pathToFileURL(createRequire(from).resolve(specifier)).href;
  } catch {
    url = resolveOwn(specifier);
  }
  const own = OWN_MODULES[specifier];
  if (own && url === resolveOwnOrNull(specifier)) return { url, load: own };
  return { url, load: () => importUrl(url) };
}

function resolveOwnOrNull(specifier: string): string | null {
  try {
    return resolveOwn(specifier);
  } catch {
    return null;
  }
}

const isPath = (specifier: string): boolean => specifier.startsWith('./') || specifier.startsWith('../') || path.isAbsolute(specifier);
