import type * as esbuild from 'esbuild';

/** The import kinds of code (not of stylesheets: `@import`, `url()`), in esbuild's names. */
export const CODE_IMPORT_KINDS: ReadonlySet<esbuild.ImportKind> = new Set<esbuild.ImportKind>(['import-statement', 'dynamic-import', 'require-call', 'require-resolve']);
