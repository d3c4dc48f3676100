// Module boundaries (README "Bundling real code"): the code of a public module is in its own
// output only once on a page.
// - A bare import of a workspace package stays bare even where a tsconfig `paths` entry maps it
//   to the other package's sources (esbuild applies `paths` before `packages: 'external'`, but
//   after its `external` patterns).
// - A relative import that reaches another public module's entry file (Lit's entries import
//   each other by relative path) is an import of that module: it stays external, written as
//   the module's public specifier, so its classes and state are not copied into this one.
import path from 'node:path';
import type * as esbuild from 'esbuild';
import type { BundleTarget } from '../types.js';
import { escapeRegExp } from '../filters.js';
import { boundaryCrossedText } from '../../workspace/diagnostics.js';

const stem = (file: string) => file.replace(/\.(?:d\.)?[cm]?[jt]sx?$/, '');

/**
 * esbuild's `external` patterns of the workspace's packages: checked in Go before tsconfig
 * `paths`, and before any resolution (a plugin's callback for each import of a workspace
 * package took the main thread: an app importing 1,000 modules waited for 1,000 of them).
 */
export function workspacePackagesExternal(targets: BundleTarget[]): string[] {
  return (targets[0]?.workspace?.packages ?? []).flatMap((name) => [name, `${name}/*`]);
}

interface Candidate {
  file: string;
  specifier: string;
  within?: string;
}

// The entries' part of the map and its filter, made once per workspace model (its boundaries
// are one object until the workspace changes): a first start makes a plugin for each batch of
// 100 modules, and each made this map of 1,000 entries again.
const entryCandidates = new WeakMap<Record<string, string>, { root: string; byStem: Map<string, Candidate>; filter: RegExp | null }>();

function candidatesOf(root: string, entries: Record<string, string>): { byStem: Map<string, Candidate>; filter: RegExp | null } {
  const known = entryCandidates.get(entries);
  if (known && known.root === root) return known;
  const byStem = new Map<string, Candidate>();
  for (const [file, specifier] of Object.entries(entries)) {
    // A stylesheet module's sheet imported by relative path stays in the importer's styles, as
    // before it was published: rules hold no state to duplicate (README "Stylesheet modules").
    if (file.endsWith('.css')) continue;
    byStem.set(stem(path.join(root, file)), { file: path.join(root, file), specifier });
  }
  const made = { root, byStem, filter: byStem.size === 0 ? null : entryImportFilter(byStem.keys()) };
  entryCandidates.set(entries, made);
  return made;
}

/** A relative import this plugin kept external, with the file esbuild resolved it to (absolute paths). */
export interface KeptExternal {
  importer: string;
  original: string;
  file: string;
}

// By build result: esbuild's metafile names no `original` for an import a plugin kept external,
// and what its resolution depended on is an input of the module all the same (README "Bundling
// real code"): `collect` finds them here.
const keptExternals = new WeakMap<object, readonly KeptExternal[]>();

/** The relative imports the build that gave `result` kept external as modules or shared files. */
export const keptExternalOf = (result: object): readonly KeptExternal[] => keptExternals.get(result) ?? [];

export function moduleBoundariesPlugin(root: string, targets: BundleTarget[]): esbuild.Plugin {
  // Entry files by path without extension: an import of `./reactive-element.js` names `reactive-element.ts`.
  // A shared file (README "Shared files") is imported by its internal specifier from its own package only.
  const ofEntries = candidatesOf(root, targets[0]?.workspace?.entries ?? {});
  let byStem = ofEntries.byStem;
  let filter = ofEntries.filter;
  for (const target of targets) {
    const within = target.package ? path.join(root, target.package.dir) + path.sep : undefined;
    for (const [file, specifier] of Object.entries(target.shared ?? {})) {
      if (byStem.has(stem(path.join(root, file)))) continue;
      if (byStem === ofEntries.byStem) byStem = new Map(byStem);
      byStem.set(stem(path.join(root, file)), { file: path.join(root, file), specifier, within });
    }
  }
  if (byStem !== ofEntries.byStem) filter = entryImportFilter(byStem.keys());
  return {
    name: 'core-module-boundaries',
    setup(build) {
      if (filter === null) return;
      // One list per build of a kept context: handed to its result as it ends, a new one begun.
      let kept: KeptExternal[] = [];
      build.onEnd((result) => {
        keptExternals.set(result, kept);
        kept = [];
      });
      build.onResolve({ filter }, async (args) => {
        if (args.pluginData === SKIP) return undefined;
        if (args.kind !== 'import-statement' && args.kind !== 'dynamic-import' && args.kind !== 'require-call') return undefined;
        const candidate = byStem.get(stem(path.resolve(args.resolveDir, args.path)));
        if (!candidate) return undefined;
        // Confirm with esbuild's own resolution (extensions, tsconfig): the same file, or not ours.
        const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: SKIP });
        if (resolved.errors.length > 0 || resolved.path !== candidate.file) return undefined;
        if (candidate.within !== undefined && !args.importer.startsWith(candidate.within)) return undefined;
        kept.push({ importer: args.importer, original: args.path, file: candidate.file });
        if (candidate.within !== undefined) return { path: candidate.specifier, external: true };
        return {
          path: candidate.specifier,
          external: true,
          warnings: [{ text: `MODULE_BOUNDARY_CROSSED: ${boundaryCrossedText(args.path, candidate.specifier)}` }],
        };
      });
    },
  };
}

// Which relative imports can reach an entry, decided in Go: those whose last segment is an
// entry's name (with or without an extension), and those ending in `.`, `..` or `/` (they name
// a directory, or its name as a file). Every other relative import never reaches JavaScript:
// a rebuild of a module asks its plugins again for every import it resolves, and a callback
// waits for the main thread, which is answering the request that asked for the build.
export function entryImportFilter(stems: Iterable<string>): RegExp {
  const names = [...new Set([...stems].map((file) => escapeRegExp(path.basename(file))))].sort();
  return new RegExp(`^\\.\\.?(?:$|/(?:.*/)?(?:(?:${names.join('|')})(?:\\.d)?(?:\\.[cm]?[jt]sx?)?|\\.\\.?)?$)`);
}

// Marks the resolution this plugin asks for itself, so that it does not answer it again.
const SKIP = Symbol('core-module-boundaries');
