// The module boundaries of a workspace, for the bundlers (README "Bundling real code"): every
// public module's entry file with the specifier it is imported by, and the package names.
// Two modules with one entry file (Lit's root `@lit/reactive-element` and its
// `./reactive-element.js`) are one module on a page: the first by subpath (the root first)
// names it.
import path from 'node:path';
import type { WorkspaceModel } from './model.js';
import { packageDeclarations, type ModuleDeclaration } from './shared-files.js';

export interface WorkspaceBoundaries {
  /** Changes when the rest does: what a kept esbuild context is checked against. */
  key: string;
  /** Entry file, relative to the workspace, to the public specifier of its module. */
  entries: Record<string, string>;
  packages: string[];
  /** Each package's current version: the one its addresses under `/m/` carry (README "Addresses"). */
  versions?: Record<string, string>;
  /** Each package's `package.json` (workspace-relative): an input of a module whose outputs name the package's address, which carries its version. */
  manifests?: Record<string, string>;
  /** Each package's modules' declarations: which assets its addresses under `/m/` serve (README "Workspaces"). */
  declarations?: Record<string, readonly ModuleDeclaration[]>;
  /** The model's `linkedDirs`: where the directories reached through a link really are; absent when none. */
  linkedDirs?: Record<string, string>;
  /** The bare names some workspace package's `browser` field maps, which the builds resolve by it (README "Bundling real code"); absent when none. */
  browserDisabled?: string[];
}

const computed = new WeakMap<WorkspaceModel, WorkspaceBoundaries>();

export function workspaceBoundaries(workspace: WorkspaceModel): WorkspaceBoundaries {
  let boundaries = computed.get(workspace);
  if (boundaries) return boundaries;
  const entries: Record<string, string> = Object.create(null);
  const modules = [...workspace.modules].sort((a, b) => (a.subpath < b.subpath ? -1 : a.subpath > b.subpath ? 1 : 0));
  for (const module of modules) if (module.entry !== null && !(module.entry in entries)) entries[module.entry] = module.specifier;
  const packages = workspace.packages.map((pkg) => pkg.name).sort();
  const linkedDirs = workspace.linkedDirs;
  const browserDisabled = [...new Set(workspace.packages.flatMap((pkg) => pkg.browserDisabled ?? []))].sort();
  boundaries = {
    key: fingerprint(JSON.stringify([entries, packages, linkedDirs ?? null, browserDisabled])),
    entries,
    packages,
    versions: Object.fromEntries(workspace.packages.map((pkg) => [pkg.name, pkg.version])),
    manifests: Object.fromEntries(workspace.packages.map((pkg) => [pkg.name, path.posix.join(pkg.dir, 'package.json')])),
    declarations: Object.fromEntries(packageDeclarations(workspace)),
    ...(linkedDirs ? { linkedDirs } : {}),
    ...(browserDisabled.length > 0 ? { browserDisabled } : {}),
  };
  computed.set(workspace, boundaries);
  return boundaries;
}

/** The module that stands for `specifier` on a page: itself, or the module sharing its entry file. */
export function canonicalSpecifier(workspace: WorkspaceModel, specifier: string, entry: string | null): string {
  return entry === null ? specifier : (workspaceBoundaries(workspace).entries[entry] ?? specifier);
}

// FNV-1a, 32 bits: a key that changes when the boundaries do, cheap to compare.
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(36);
}
