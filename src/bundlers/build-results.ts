// From esbuild's answer to the bundler's results: each entry's outputs, the files it read,
// its bare imports, or its errors as BUNDLE_ERROR diagnostics.
import path from 'node:path';
import type * as esbuild from 'esbuild';
import type { ImportRecord } from '../workspace/checks.js';
import { diagnostic, type Diagnostic, type DiagnosticKind } from '../workspace/diagnostics.js';
import { isBare } from '../workspace/specifiers.js';
import { OUT } from './esbuild-options.js';
import { CODE_IMPORT_KINDS } from './import-kinds.js';
import { WORKSPACE_CONFINEMENT } from './plugins/workspace-confinement.js';
import type { BundleResult, BundleTarget } from './types.js';

// Import kinds of JavaScript; CSS `@import` and `url()` are not dependencies between modules.

export const isBuildFailure = (error: unknown): error is esbuild.BuildFailure =>
  error instanceof Error && Array.isArray((error as Partial<esbuild.BuildFailure>).errors) && (error as esbuild.BuildFailure).errors.length > 0;

// The outputs, inputs and bare imports of entry `index` of a finished build.
export function collect(root: string, target: BundleTarget, index: number, result: esbuild.BuildResult): BundleResult {
  const files = result.outputFiles ?? [];
  const metafile = result.metafile!;
  const codePath = path.join(root, `${OUT}${index}.js`);
  const stylesPath = path.join(root, `${OUT}${index}.css`);
  const code = files.find((file) => file.path === codePath)?.contents ?? null;
  const styles = files.find((file) => file.path === stylesPath)?.contents ?? null;
  const inputs = new Set<string>();
  const codeOutput = metafile.outputs[`${OUT}${index}.js`];
  const codeInputs = Object.keys(codeOutput?.inputs ?? {});
  const read = [...codeInputs, ...Object.keys(metafile.outputs[`${OUT}${index}.css`]?.inputs ?? {}), ...reachedFrom(metafile, codeOutput?.entryPoint)];
  for (const input of read) {
    const file = inputPath(input);
    if (file !== null) inputs.add(file);
  }
  const imports: ImportRecord[] = [];
  for (const input of codeInputs) {
    for (const record of metafile.inputs[input]?.imports ?? []) {
      // A relative import of another module's entry is external as that module's specifier (its `path`).
      const specifier = record.external && isBare(record.path) ? record.path : (record.original ?? record.path);
      if (!record.external || !CODE_IMPORT_KINDS.has(record.kind) || !isBare(specifier)) continue;
      const file = inputPath(input);
      if (file === null) continue;
      // Where the import is written is found by the build runner, from the text it hashes.
      imports.push({ specifier, file });
    }
  }
  const warnings = warningsOf(root, result.warnings, inputs);
  return { specifier: target.specifier, code, styles: styles && styles.length > 0 ? styles : null, inputs: [...inputs].sort(), imports, errors: [], ...(warnings.length > 0 ? { warnings } : {}) };
}

// esbuild's warnings about the files of this entry, as diagnostics. A plugin's warning that
// starts with a code (`MODULE_BOUNDARY_CROSSED: ...`) is of that kind; esbuild's own are BUNDLE_WARNING.
export function warningsOf(root: string, messages: readonly esbuild.Message[], inputs: ReadonlySet<string>): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  for (const message of messages) {
    const file = message.location ? inputPath(message.location.file) : null;
    if (file === null || !inputs.has(file)) continue;
    const coded = /^([A-Z][A-Z_]+): ([\s\S]*)$/.exec(message.text);
    const kind: DiagnosticKind = coded?.[1] === 'MODULE_BOUNDARY_CROSSED' ? 'MODULE_BOUNDARY_CROSSED' : 'BUNDLE_WARNING';
    const text = (coded && kind !== 'BUNDLE_WARNING' ? coded[2]! : message.text).split(root + path.sep).join('');
    warnings.push(diagnostic(kind, text, { file, line: message.location!.line, column: message.location!.column + 1 }));
  }
  return warnings;
}

// Every file the entry's import graph read. An output's `inputs` name only the files that
// put bytes in it: one that put none (empty while an editor saved it, type-only, tree-shaken)
// is still an input, whose next change must build the module again.
function reachedFrom(metafile: esbuild.Metafile, entryPoint: string | undefined): string[] {
  if (entryPoint === undefined) return [];
  const reached = new Set<string>([entryPoint]);
  const queue = [entryPoint];
  while (queue.length > 0) {
    for (const record of metafile.inputs[queue.pop()!]?.imports ?? []) {
      if (record.external || reached.has(record.path)) continue;
      reached.add(record.path);
      queue.push(record.path);
    }
  }
  return [...reached];
}

// A failed build: its diagnostics, and the files whose change could fix it.
export function failed(root: string, target: BundleTarget, messages: esbuild.Message[]): BundleResult {
  const inputs = new Set<string>([target.entry, `${target.dir}/`]);
  const errors: Diagnostic[] = [];
  for (const message of messages) {
    const file = message.location ? inputPath(message.location.file) : null;
    const text = message.text.split(root + path.sep).join('');
    errors.push(
      diagnostic('BUNDLE_ERROR', text, file === null ? { file: target.entry } : { file, line: message.location!.line, column: message.location!.column + 1 }),
    );
    if (file === null) continue;
    inputs.add(file);
    // A missing file: its creation changes the listing of the directory it would be in.
    const missing = /^Could not resolve "(\.{1,2}\/[^"]+)"/.exec(message.text);
    if (missing) inputs.add(`${path.posix.dirname(path.posix.join(path.posix.dirname(file), missing[1]!))}/`);
    // A file refused as outside the workspace: the path it is imported by (a link inside, which
    // may be led back into the workspace), read from the import the message points at.
    if (message.pluginName === WORKSPACE_CONFINEMENT) {
      const { lineText, column, length } = message.location!;
      const written = lineText.slice(column, column + length).replace(/^["']|["']$/g, '');
      const imported = written.startsWith('.') ? path.posix.join(path.posix.dirname(file), written) : null;
      if (imported !== null && !imported.startsWith('../')) inputs.add(imported).add(`${path.posix.dirname(imported)}/`);
    }
  }
  return { specifier: target.specifier, code: null, styles: null, inputs: [...inputs].sort(), imports: [], errors };
}

// Metafile paths are relative to the working directory; one in another namespace (a
// plugin's virtual module) is no file.
export function inputPath(input: string): string | null {
  return /^[a-z-]+:/.test(input) ? null : input.replace(/\\/g, '/');
}

/**
 * The one plain stylesheet the code of entry `index` imports, when there is exactly one:
 * then the module's styles output is that stylesheet bundled alone, byte for byte, and a
 * change of stylesheets only can be built from it without the code. Null otherwise (none,
 * several, or a CSS module, whose class names are part of the code).
 */
export function stylesheetRoot(result: esbuild.BuildResult, index: number): string | null {
  const metafile = result.metafile!;
  const roots = new Set<string>();
  for (const input of Object.keys(metafile.outputs[`${OUT}${index}.js`]?.inputs ?? {})) {
    for (const record of metafile.inputs[input]?.imports ?? []) {
      if (record.external || !CODE_IMPORT_KINDS.has(record.kind) || !record.path.endsWith('.css')) continue;
      if (record.path.endsWith('.module.css')) return null;
      roots.add(record.path);
    }
  }
  return roots.size === 1 ? [...roots][0]! : null;
}

/** The files the styles output of entry `index` was made from. */
export function stylesInputs(result: esbuild.BuildResult, index: number): string[] {
  return Object.keys(result.metafile!.outputs[`${OUT}${index}.css`]?.inputs ?? {}).flatMap((input) => inputPath(input) ?? []);
}
