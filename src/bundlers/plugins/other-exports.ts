// An installed package's files that are the entries of its other exports stay external, as those
// exports' bare specifiers (README "The local CDN"). `lit-html/directives/class-map.js` imports
// `../directive.js` and `../lit-html.js`, themselves exports of lit-html: bundled into each
// export that reaches them, a page loading two exports would run such a file twice (two
// registries, two classes, `instanceof` false). The import map names each export once, so the
// specifier written here is the one copy every export and the page share. A `require()` of such a
// file, or of another export by the package's own name, is an import of that export's module too,
// the `require` giving what Node's gives (plugins/required-packages.ts): left to esbuild, the first
// bundled a second copy and the second was a helper that throws. A stylesheet or an asset stays
// bundled: a code entry's sheets join the sheet beside it (README "Stylesheet modules").
import fs from 'node:fs';
import type * as esbuild from 'esbuild';
import { parseBareSpecifier } from '../../workspace/specifiers.js';
import { REQUIRED } from './required-packages.js';
import { noticingDeath } from '../esbuild-service.js';

export const OTHER_EXPORTS = 'core-other-exports';

// esbuild's resolution of the import, asked from within the plugin's own hook: marked (esbuild
// hands pluginData back as given) so that hook passes it on.
const ASKED = { askedBy: OTHER_EXPORTS };

const CODE_FILE = /\.[cm]?[jt]sx?$/;

/** The package's exports, as the bundle of one of them sees the others. */
export interface OwnExports {
  /** The package's name: a `require` of it (or of a subpath) is of one of its exports. */
  name: string;
  /** The bare specifier of the export whose entry `file` (a real path) is, or null. */
  exportOf(file: string): string | null;
  /** The entry file (a real path) of the export `subpath` (`''` the root), or null when it exports none. */
  entryOf(subpath: string): string | null;
}

/**
 * The plugin keeping external each relative or `#imports` import that resolves, as esbuild
 * resolves it for this build, to a file `exportOf` names the export of (its bare specifier); a
 * `require` of such a file, or of an export by the package's name, becomes an import of that
 * export's module. `entry`, the file being built, is never external.
 */
export function otherExportsPlugin(entry: string, own: OwnExports): esbuild.Plugin {
  return {
    name: OTHER_EXPORTS,
    setup(build) {
      build.onResolve({ filter: /^(?:\.|#)/ }, async (args) => {
        if (args.kind !== 'import-statement' && args.kind !== 'dynamic-import' && args.kind !== 'require-call') return undefined;
        if (args.pluginData === ASKED) return undefined;
        const resolved = await noticingDeath(build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: ASKED }));
        // esbuild says what is wrong when it resolves the import itself next.
        if (resolved.errors.length > 0 || resolved.external || resolved.namespace !== 'file' || !resolved.path) return undefined;
        const real = realPath(resolved.path);
        if (real === entry || !CODE_FILE.test(real)) return undefined;
        const specifier = own.exportOf(real);
        return specifier === null ? undefined : otherExport(specifier, args.kind);
      });
      // `require('pkg/widgets')` in pkg: every bare name is external in these builds, where a
      // `require` of it is esbuild's helper that throws in a browser.
      build.onResolve({ filter: /^[^./#]/ }, (args) => {
        const bare = args.kind === 'require-call' && args.namespace === 'file' ? parseBareSpecifier(args.path) : null;
        if (!bare || bare.packageName !== own.name) return undefined;
        const target = own.entryOf(bare.subpath);
        return target === null || target === entry ? undefined : otherExport(args.path, args.kind);
      });
    },
  };
}

// An import stays that export's bare import; a `require` loads it through the module giving what
// Node's `require` gives (plugins/required-packages.ts).
const otherExport = (specifier: string, kind: esbuild.ImportKind): esbuild.OnResolveResult =>
  kind === 'require-call' ? { path: specifier, namespace: REQUIRED } : { path: specifier, external: true };

function realPath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}
