// A CSS module's (`x.module.css`) local names are unique to its file (README "Stylesheet modules").
// esbuild's `local-css` loader names them `<file stem>_<name>`, numbered only against the other
// sheets of one build, or minified to the shortest free names: each module is its own build here,
// so `m1/a.module.css` and `m2/a.module.css` both made `.a_btn` (or `.o`), one module's rules
// styled the other's elements on the page, and which got `a_btn2` depended on which modules were
// built together. esbuild 0.28 has no option naming them, so this plugin names them itself:
// `<file stem>_<name>_<hash of the file's workspace path>`, the same in every build of the file
// (a batch, an edit's build alone, the build cache, `core dist`) and in every variant.
//
// esbuild's transform with the `local-css` loader finds the local names (it resolves `:local`,
// `:global`, keyframes, ids) and writes each as `<marker>_<name>`; only those are renamed. The
// sheet is then built as global CSS, and the code importing it gets the class names from a module
// the plugin makes (`{ btn: "a_btn_1a2b3c4d" }`, and each as a named export, as esbuild's loader
// gives them). The transform drops `composes`, so what each name composes (a local name of the
// sheet, or one `from global`) is learnt from esbuild's loader in a build of the sheet alone, read
// from nothing but the source. A sheet composing from another file, or one esbuild warns about,
// is left to esbuild's own loader, where its messages keep their places.
import crypto from 'node:crypto';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { readRegularFile } from '../../regular-files.js';
import { CODE_IMPORT_KINDS } from '../import-kinds.js';
import { noticingDeath, serviceCall } from '../esbuild-service.js';

// The stem esbuild's transform gives every local name of the sheet: no name a sheet would write.
const MARKER = 'zqxcorelocalzqx';
const MARKED = new RegExp(`${MARKER}_((?:[A-Za-z0-9_-]|\\\\[^\\n]|[^\\x00-\\x7f])+)`, 'g');
const CLASS_NAMES_SUFFIX = '?core-css-module';

/** The name a local name `name` of the CSS module at `workspacePath` (posix, from the workspace root) gets. */
export function localName(workspacePath: string, name: string): string {
  const stem = path.posix.basename(workspacePath).replace(/\..*$/, '').replace(/[^A-Za-z0-9_-]/g, '_') || 'css';
  const hash = crypto.createHash('sha256').update(workspacePath).digest('hex').slice(0, 8);
  return `${stem}_${name}_${hash}`;
}

/** What of esbuild's API the renaming calls: its transform, and a build of a sheet alone. */
type EsbuildApi = Pick<typeof esbuild, 'transform' | 'build'>;

interface Renamed {
  css: string;
  /** Each local name as written (unescaped) and the name it gets, in the order of the sheet. */
  names: Map<string, string>;
}

/** The sheet `source` of the CSS module at `workspacePath` with its local names renamed, or null when esbuild's own loader must take it. */
export async function renameLocalNames(engine: EsbuildApi, source: string, workspacePath: string): Promise<Renamed | null> {
  let result: esbuild.TransformResult;
  try {
    result = await engine.transform(source, { loader: 'local-css', sourcefile: `${MARKER}.module.css`, charset: 'utf8', logLevel: 'silent' });
  } catch {
    return null; // a syntax error: esbuild's loader reports it at its place
  }
  if (result.warnings.length > 0) return null;
  const names = new Map<string, string>();
  const css = result.code.replace(MARKED, (_whole, written: string) => {
    // As the sheet writes it (escapes kept) in the sheet, as the browser reads it in the code.
    const name = written.replace(/\\(.)/g, '$1');
    if (!names.has(name)) names.set(name, localName(workspacePath, name));
    return localName(workspacePath, written);
  });
  if (!/composes\s*:/i.test(source)) return { css, names };
  const composed = await composedNames(engine, source);
  if (!composed) return null;
  // Each name's class list, as esbuild's loader gives it (the composed names first), renamed.
  for (const [name, list] of composed) {
    names.set(name, list.split(/\s+/).map((each) => (each.startsWith(`${MARKER}_`) ? localName(workspacePath, each.slice(MARKER.length + 1)) : each)).join(' '));
  }
  return { css, names };
}

const SHEET_ALONE = `${MARKER}.module.css`;
// A line of the names object esbuild prints for a CSS module: `  btn: "...",` or `  "icon-x": "...",`.
const NAMES_LINE = /^\s*(?:([A-Za-z_$][\w$]*)|("(?:[^"\\]|\\.)*")):\s*("(?:[^"\\]|\\.)*"),?$/;

/**
 * What each local name of a sheet with `composes` stands for in the code (`"<marker>_base <marker>_btn"`),
 * from esbuild's loader building the sheet alone: null when it composes from another file (no file is
 * read here), or when esbuild warns or fails, which the module's own build then says at its place.
 */
async function composedNames(engine: EsbuildApi, source: string): Promise<Map<string, string> | null> {
  let result: esbuild.BuildResult & { outputFiles: esbuild.OutputFile[] };
  try {
    result = await engine.build({
      stdin: { contents: `export { default } from ${JSON.stringify(SHEET_ALONE)};`, loader: 'js' },
      bundle: true,
      write: false,
      outdir: '/',
      format: 'esm',
      charset: 'utf8',
      logLevel: 'silent',
      plugins: [{
        name: 'core-css-module-alone',
        setup(build) {
          build.onResolve({ filter: /.*/ }, (args) => (args.path === SHEET_ALONE && args.kind === 'import-statement' ? { path: SHEET_ALONE, namespace: 'core-css-module-alone' } : { errors: [{ text: 'composes from another file' }] }));
          build.onLoad({ filter: /.*/, namespace: 'core-css-module-alone' }, () => ({ contents: source, loader: 'local-css' }));
        },
      }],
    });
  } catch {
    return null;
  }
  const code = result.outputFiles.find((file) => file.path.endsWith('.js'))?.text;
  if (result.warnings.length > 0 || code === undefined) return null;
  const body = /= \{\n([\s\S]*?)\n\};/.exec(code)?.[1];
  if (body === undefined) return null;
  const names = new Map<string, string>();
  for (const line of body.split('\n')) {
    const match = NAMES_LINE.exec(line);
    const key = match && (match[1] ?? jsonString(match[2]!));
    const list = match && jsonString(match[3]!);
    if (key == null || list === null) return null;
    names.set(key, list);
  }
  return names;
}

/** A string literal esbuild printed, read as JSON; null for an escape JSON has not (`\x41`): that sheet is left to esbuild. */
function jsonString(literal: string): string | null {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return null;
  }
}

/** The code module standing for a CSS module: its sheet imported for its rules, its names as the default export and as named exports. */
function classNamesModule(sheet: string, names: ReadonlyMap<string, string>): string {
  const lines = [`import ${JSON.stringify(`./${sheet}`)};`];
  const entries = [...names];
  lines.push(`const names = {${entries.map(([name, renamed]) => `\n  ${JSON.stringify(name)}: ${JSON.stringify(renamed)}`).join(',')}\n};`);
  lines.push('export default names;');
  entries.forEach(([name, renamed], index) => {
    if (name === 'default') return;
    lines.push(`const name${index} = ${JSON.stringify(renamed)};`, `export { name${index} as ${JSON.stringify(name)} };`);
  });
  return `${lines.join('\n')}\n`;
}

export function cssModulesPlugin(root: string): esbuild.Plugin {
  const workspacePath = (file: string) => path.relative(root, file).split(path.sep).join('/');
  // The sheet and the names module of one file read the same source: one transform, the last source's per file.
  const last = new Map<string, { source: string; renamed: Promise<Renamed | null> }>();
  const renamedOf = (engine: EsbuildApi, file: string, source: string): Promise<Renamed | null> => {
    const known = last.get(file);
    if (known?.source === source) return known.renamed;
    const renamed = renameLocalNames(engine, source, workspacePath(file));
    last.set(file, { source, renamed });
    return renamed;
  };
  return {
    name: 'core-css-modules',
    setup(build) {
      // The code's relative import of a CSS module gets the names module; the sheet, imported by
      // it (or by another sheet's `@import`), is the file itself.
      build.onResolve({ filter: /\.module\.css$/, namespace: 'file' }, async (args) => {
        if (!CODE_IMPORT_KINDS.has(args.kind) || !args.path.startsWith('.')) return undefined;
        if ((args.pluginData as { classNamesOf?: string } | undefined)?.classNamesOf !== undefined) return undefined;
        // Resolved as esbuild would (this plugin steps aside): a missing file is said as before.
        const resolved = await noticingDeath(build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, namespace: args.namespace, pluginData: { classNamesOf: args.importer } }));
        if (resolved.errors.length > 0 || resolved.external || resolved.namespace !== 'file' || !resolved.path.endsWith('.module.css')) return undefined;
        return { path: resolved.path, suffix: CLASS_NAMES_SUFFIX };
      });
      build.onLoad({ filter: /\.module\.css$/, namespace: 'file' }, async (args): Promise<esbuild.OnLoadResult | undefined> => {
        let source: string;
        try {
          // Never waits on a FIFO (README "Files that are not files"): esbuild's read says what it is.
          source = readRegularFile(args.path).bytes.toString('utf8');
        } catch {
          return undefined;
        }
        // Each call of the plugin's own tells a death at once (README "When esbuild's process dies").
        const engine = { transform: (input, options) => serviceCall(() => build.esbuild.transform(input, options)), build: (options) => serviceCall(() => build.esbuild.build(options)) } as EsbuildApi;
        const renamed = await renamedOf(engine, args.path, source);
        if (args.suffix === CLASS_NAMES_SUFFIX) {
          // Left to esbuild's loader: the code imports the sheet itself, which gives its names.
          const contents = renamed ? classNamesModule(path.basename(args.path), renamed.names) : `export * from ${JSON.stringify(`./${path.basename(args.path)}`)};\nexport { default } from ${JSON.stringify(`./${path.basename(args.path)}`)};\n`;
          return { contents, loader: 'js', resolveDir: path.dirname(args.path), pluginData: { classNamesOf: args.path } };
        }
        if (!renamed) return undefined;
        return { contents: renamed.css, loader: 'css', resolveDir: path.dirname(args.path) };
      });
    },
  };
}
