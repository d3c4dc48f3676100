// An installed package's sheet `@import`ing another package's sheet by its bare name
// (`@import 'tokens/tokens.css'`, resolved as Node resolves it from the importing package's
// folder): the local CDN serves only the package's own files (SECURITY.md), and CSS has no import
// map, so left as written the browser asked `/cdn/tokens/tokens.css`, which answers nothing. The
// `@import` is taken out of the sheet (an empty sheet in its place) and the bundle records the
// name, in the order the sheets import them; the preview maps it as it maps a bare import of code,
// and links that package's sheet before the importing one, as CSS orders an imported sheet's rules
// before the importer's (README "The local CDN").
import type * as esbuild from 'esbuild';
import { lineAndColumn } from '../../workspace/json.js';
import { importRulesOf } from '../css-module-script-imports.js';
import { inputPath } from '../build-results.js';
import { noticingDeath } from '../esbuild-service.js';

export const OTHER_PACKAGE_SHEETS = 'core-other-package-sheets';
/** The namespace of a sheet of another package: the metafile names it `cdn-sheet:<specifier>`. */
const SHEET = 'cdn-sheet';
// esbuild's resolution of the import, asked from within the plugin's own hook: marked so that hook passes it on.
const ASKED = { askedBy: OTHER_PACKAGE_SHEETS };

// A name as a package's sheet names another package: no path (`./`, `../`, `/`; esbuild's filter,
// which has no lookahead), no URL (`https:`, `data:`).
const NO_PATH = /^[^./]/;
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * The plugin taking out each `@import` of a sheet that lies in no file of the package in
 * `packageDir` (its real path): one esbuild resolves to another package, keeps external, or
 * cannot find in the package. CSS tries a bare name beside the sheet first (`@import 'sub/a.css'`
 * joins the package's own `sub/a.css`), and so does this.
 */
export function otherPackageSheetsPlugin(packageDir: string): esbuild.Plugin {
  return {
    name: OTHER_PACKAGE_SHEETS,
    setup(build) {
      build.onResolve({ filter: NO_PATH }, async (args) => {
        if (args.kind !== 'import-rule' || args.pluginData === ASKED || URL_SCHEME.test(args.path)) return undefined;
        const resolved = await noticingDeath(build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: ASKED }));
        const own = resolved.errors.length === 0 && !resolved.external && resolved.namespace === 'file' && resolved.path.startsWith(`${packageDir}/`);
        return own ? undefined : { path: args.path, namespace: SHEET };
      });
      build.onLoad({ filter: /.*/, namespace: SHEET }, () => ({ contents: '', loader: 'css' }));
    },
  };
}

/**
 * The other packages' sheets a build's sheets `@import`, in the order CSS meets them: from the
 * entry, each file's imports in the order written, a sheet's before the sheet (the first place of
 * one imported twice).
 */
export function otherPackageSheets(metafile: esbuild.Metafile): string[] {
  const entry = Object.values(metafile.outputs).find((output) => output.entryPoint !== undefined)?.entryPoint;
  const found: string[] = [];
  const seen = new Set<string>();
  const visit = (input: string): void => {
    if (seen.has(input)) return;
    seen.add(input);
    if (input.startsWith(`${SHEET}:`)) {
      found.push(input.slice(SHEET.length + 1));
      return;
    }
    for (const record of metafile.inputs[input]?.imports ?? []) if (!record.external) visit(record.path);
  };
  if (entry !== undefined) visit(entry);
  // Any not reached from the entry, in the metafile's order: each is still the page's to link.
  for (const input of Object.keys(metafile.inputs)) if (input.startsWith(`${SHEET}:`)) visit(input);
  return found;
}

/** An `@import` of another package's sheet written with a condition (`print`, `layer(tokens)`, `supports(...)`), which the page's link of that sheet cannot carry. */
export interface ConditionedSheetImport {
  /** The importing sheet, relative to the package's directory. */
  file: string;
  line: number;
  /** The rule as written. */
  text: string;
}

// `@import 'x'` or `@import url(x)`, then what follows up to its `;`: its condition.
const IMPORT_RULE = /^@import\s*(?:url\(\s*(["']?)([^"')]*)\1\s*\)|(["'])((?:(?!\3).)*)\3)([^;]*);/is;

/**
 * The `@import`s of other packages' sheets that the build's sheets write with a condition: linked
 * by the page, that sheet applies without it (README "The local CDN"). `textOf` reads a sheet of
 * the package (null: unreadable, nothing said).
 */
export function conditionedSheetImports(metafile: esbuild.Metafile, textOf: (file: string) => string | null): ConditionedSheetImport[] {
  const found: ConditionedSheetImport[] = [];
  for (const [input, { imports }] of Object.entries(metafile.inputs)) {
    const named = new Set(imports.filter((record) => record.path.startsWith(`${SHEET}:`)).map((record) => record.path.slice(SHEET.length + 1)));
    const file = named.size > 0 ? inputPath(input) : null;
    const text = file === null ? null : textOf(file);
    if (file === null || text === null) continue;
    for (const at of importRulesOf(text)) {
      const rule = IMPORT_RULE.exec(text.slice(at));
      if (rule && named.has((rule[2] ?? rule[4])!) && rule[5]!.trim() !== '') found.push({ file, line: lineAndColumn(text, at).line, text: rule[0].replace(/\s+/g, ' ') });
    }
  }
  return found;
}
