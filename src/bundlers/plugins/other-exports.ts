// An installed package's files that are the entries of its other exports stay external, as those
// exports' bare specifiers (README "The local CDN"). `lit-html/directives/class-map.js` imports
// `../directive.js` and `../lit-html.js`, themselves exports of lit-html: bundled into each
// export that reaches them, a page loading two exports would run such a file twice (two
// registries, two classes, `instanceof` false). The import map names each export once, so the
// specifier written here is the one copy every export and the page share. A `require()` stays
// bundled: a bare `require` has no import map to resolve it in a browser. So does a stylesheet or
// an asset: a code entry's sheets join the sheet beside it (README "Stylesheet modules").
import fs from 'node:fs';
import type * as esbuild from 'esbuild';

export const OTHER_EXPORTS = 'core-other-exports';

// esbuild's resolution of the import, asked from within the plugin's own hook: marked (esbuild
// hands pluginData back as given) so that hook passes it on.
const ASKED = { askedBy: OTHER_EXPORTS };

const CODE_FILE = /\.[cm]?[jt]sx?$/;

/**
 * The plugin keeping external each relative or `#imports` import that resolves, as esbuild
 * resolves it for this build, to a file `exportOf` names the export of (its bare specifier);
 * `entry`, the file being built, is never external.
 */
export function otherExportsPlugin(entry: string, exportOf: (file: string) => string | null): esbuild.Plugin {
  return {
    name: OTHER_EXPORTS,
    setup(build) {
      build.onResolve({ filter: /^(?:\.|#)/ }, async (args) => {
        if (args.kind !== 'import-statement' && args.kind !== 'dynamic-import') return undefined;
        if (args.pluginData === ASKED) return undefined;
        const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: ASKED });
        // esbuild says what is wrong when it resolves the import itself next.
        if (resolved.errors.length > 0 || resolved.external || resolved.namespace !== 'file' || !resolved.path) return undefined;
        const real = realPath(resolved.path);
        if (real === entry || !CODE_FILE.test(real)) return undefined;
        const specifier = exportOf(real);
        return specifier === null ? undefined : { path: specifier, external: true };
      });
    },
  };
}

function realPath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}
