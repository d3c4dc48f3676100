// Keeps every bare import external and verbatim (service.md rule 5): another public module,
// a package from outside the workspace or a built-in is never copied into the output.
// The dependency checks run later, over the imports the metafile lists.
import type * as esbuild from 'esbuild';
import { isBare } from '../../workspace/specifiers.js';

// CSS `@import "x.css"` and `url(x.png)` are relative by the rules of CSS, not package names.
const CSS_KINDS = new Set<esbuild.ImportKind>(['import-rule', 'url-token', 'composes-from']);

export function bareImportsPlugin(): esbuild.Plugin {
  return {
    name: 'core-bare-imports',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (CSS_KINDS.has(args.kind) || args.path.startsWith('data:')) return undefined;
        if (isBare(args.path) || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(args.path)) return { path: args.path, external: true };
        return undefined;
      });
    },
  };
}
