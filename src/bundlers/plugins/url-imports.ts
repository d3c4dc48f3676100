// Imports of URLs (`https://esm.sh/lit`) stay as written, like bare imports. Bare imports
// themselves are kept external by esbuild (`packages: 'external'`), in Go: a plugin callback
// is a round trip to this process, and every rebuild would pay one per import.
import type * as esbuild from 'esbuild';

export function urlImportsPlugin(): esbuild.Plugin {
  return {
    name: 'core-url-imports',
    setup(build) {
      build.onResolve({ filter: /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\// }, (args) => (args.kind === 'url-token' ? undefined : { path: args.path, external: true }));
    },
  };
}
