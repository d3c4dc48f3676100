// Code frames: the lines around a diagnostic's place, as the terminal, the dashboard and the
// overlay show them (README "Code frames"). The state holds no source text, so they are read from
// the disk when shown, and only while the file still holds what the build (or the workspace read)
// that reported the diagnostic read: between a save and its rebuild, the new lines would stand
// under the old error. Never from a file the service did not read for that diagnostic.
import { defaultVariantKey, selectVariant } from '../store/selectors.js';
import type { ServiceState } from '../store/state.js';
import type { Diagnostic } from '../workspace/diagnostics.js';
import { indexWorkspace } from '../workspace/workspace-index.js';
import { createConfinedPaths, isPlainRelative } from './confined-paths.js';
import { readConfinedFile } from './file-reads.js';

const BEFORE = 2;
const AFTER = 1;
const MAX_LINE = 240;
const MAX_FILE = 2 * 1024 * 1024;

/** What is shown instead of the lines of a file changed since it was read for a diagnostic. */
export const SOURCE_CHANGED = '(file changed since this was reported)';

/** A file's lines, `'changed'` once it no longer holds what was read, null: nothing to show. */
export type FramedSource = readonly string[] | 'changed' | null;

/** A diagnostic to frame, with the module whose build reported it (null: the workspace's read). */
export interface FramePlace {
  module: string | null;
  diagnostic: Pick<Diagnostic, 'file' | 'line' | 'column'>;
}

/**
 * The one rule of which file may be framed, and as what: the hash `file` had when the last build
 * of `module`'s default variant read it (the builds that report a module's diagnostics), else
 * when the workspace was read (a manifest); null: the service read no such file for it.
 */
export function readHashOf(state: ServiceState, module: string | null, file: string): string | null {
  const model = module === null ? undefined : indexWorkspace(state.workspace).modules.get(module);
  const built = model ? selectVariant(state, model.specifier, defaultVariantKey(model))?.last?.inputs[file] : undefined;
  if (typeof built === 'string') return built;
  const read = state.workspace.sources[file];
  return typeof read === 'string' ? read : null;
}

/** The lines of `file` (workspace-relative) while its content hashes to `hash`: see `FramedSource`. */
export function framedSource(root: string, file: string, hash: string | null): FramedSource {
  if (hash === null || !isPlainRelative(file)) return null;
  const paths = createConfinedPaths(root);
  const stats = paths.statOf(file);
  if (stats?.isFile() && stats.size > MAX_FILE) return null;
  const read = readConfinedFile(paths, file, stats);
  if (read === 'outside') return null;
  // Gone, no longer a file, or unreadable since it was read: not what was reported on.
  if (typeof read === 'string') return 'changed';
  return read.hash === hash ? read.bytes.toString('utf8').split(/\r?\n/) : 'changed';
}

/**
 * `file:line` -> the frame, for each place whose file `readHashOf` allows; `SOURCE_CHANGED` for
 * a place whose file changed since (for any of the modules that report it).
 */
export function sourceFrames(root: string, state: ServiceState, places: readonly FramePlace[]): Record<string, string> {
  const frames: Record<string, string> = {};
  const changed = new Set<string>();
  const sources = new Map<string, FramedSource>();
  for (const { module, diagnostic } of places) {
    const { file, line, column } = diagnostic;
    if (!file || !line) continue;
    const hash = readHashOf(state, module, file);
    const key = `${file}:${line}`;
    // One read per file and hash asked for.
    const asked = `${hash} ${file}`;
    if (!sources.has(asked)) sources.set(asked, framedSource(root, file, hash));
    const source = sources.get(asked)!;
    if (source === 'changed') changed.add(key);
    else if (source !== null) frames[key] ??= frame(source, line, column);
  }
  for (const key of changed) frames[key] = SOURCE_CHANGED;
  return frames;
}

function frame(lines: readonly string[], line: number, column: number | undefined): string {
  const first = Math.max(1, line - BEFORE);
  const last = Math.min(lines.length, line + AFTER);
  const width = String(last).length;
  const out: string[] = [];
  for (let n = first; n <= last; n += 1) {
    const text = (lines[n - 1] ?? '').slice(0, MAX_LINE);
    out.push(`${n === line ? '>' : ' '} ${String(n).padStart(width)} | ${text}`);
    if (n === line && column) out.push(`  ${' '.repeat(width)} | ${' '.repeat(Math.min(column - 1, MAX_LINE))}^`);
  }
  return out.join('\n');
}
