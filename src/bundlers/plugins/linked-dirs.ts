// A package or module directory reached through a symbolic link inside the workspace is built
// as the same tree without the link (README "Links and large trees"). esbuild's own resolution
// names a file by its real path (`real/ui-a/src/badge/index.ts`), while the workspace model,
// the declared assets, the other modules' entries, the inputs checked before an answer and the
// diagnostics name it by the path through the link (`packages/ui/src/badge/index.ts`). This one
// plugin, the last to resolve, names each file found under such a directory by that path again,
// so that esbuild's resolve directories, metafile, messages, comments and source maps hold the
// model's paths, and every comparison after it holds as in a tree without links. A file whose
// real path is not under the link's real directory (a link in it leading elsewhere, or out of
// the workspace) keeps its real path, and the confinement judges it as before.
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { noticingDeath } from '../esbuild-service.js';

export const LINKED_DIRS = 'core-linked-dirs';

const STYLESHEET_KINDS: ReadonlySet<esbuild.ImportKind> = new Set<esbuild.ImportKind>(['import-rule', 'url-token', 'composes-from']);

/** The plugin for a workspace whose model names `linkedDirs` (path through the link -> real path, workspace-relative); null when there is none. */
export function linkedDirsPlugin(root: string, linkedDirs: Readonly<Record<string, string>> | undefined): esbuild.Plugin | null {
  const pairs = Object.entries(linkedDirs ?? {}).map(([linked, real]) => ({ linked: path.join(root, linked), real: path.join(root, real) }));
  if (pairs.length === 0) return null;
  // The deepest real directory first: a module's own link inside a linked package wins.
  const byReal = [...pairs].sort((a, b) => b.real.length - a.real.length);
  const under = (file: string, dir: string) => file === dir || file.startsWith(dir + path.sep);
  const throughLink = (file: string) => pairs.some((pair) => under(file, pair.linked));
  const named = (file: string) => {
    const pair = byReal.find((candidate) => under(file, candidate.real));
    return pair ? pair.linked + file.slice(pair.real.length) : file;
  };
  return {
    name: LINKED_DIRS,
    setup(build) {
      // The resolutions this plugin asked esbuild for, which reach it again: esbuild resolves an
      // import of a file once, so one in flight by these arguments is its own.
      const asking = new Set<string>();
      build.onResolve({ filter: /.*/, namespace: 'file' }, async (args) => {
        const relative = args.path.startsWith('.') || args.path.startsWith('/') || STYLESHEET_KINDS.has(args.kind);
        if (!relative || !args.resolveDir || !throughLink(path.resolve(args.resolveDir, args.path))) return undefined;
        const key = `${args.kind}\0${args.importer}\0${args.resolveDir}\0${args.path}`;
        if (asking.has(key)) return undefined;
        asking.add(key);
        try {
          const resolved = await noticingDeath(build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, namespace: args.namespace, pluginData: args.pluginData, with: args.with }));
          if (resolved.errors.length > 0) return { errors: resolved.errors, warnings: resolved.warnings };
          return {
            path: resolved.namespace === 'file' && !resolved.external ? named(resolved.path) : resolved.path,
            namespace: resolved.namespace,
            external: resolved.external,
            sideEffects: resolved.sideEffects,
            pluginData: resolved.pluginData,
            suffix: resolved.suffix,
            warnings: resolved.warnings,
          };
        } finally {
          asking.delete(key);
        }
      });
    },
  };
}
