// Diagnostics: what is wrong with a module or a manifest, in the shape of README "Error codes";
// their kinds are the table of `src/codes.ts`.
import type { DiagnosticKind } from '../codes.js';

export type { DiagnosticKind };

export interface Diagnostic {
  kind: DiagnosticKind;
  message: string;
  /** Relative to the workspace, with forward slashes. */
  file?: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  column?: number;
  /** The source lines it concerns, numbered, with a caret under the column (a CSS syntax problem). */
  frame?: string;
  /** Found by the module's production build only (`env=production`; README "Addresses"): absent for the development build's. */
  env?: 'production';
}

export function diagnostic(kind: DiagnosticKind, message: string, where: Pick<Diagnostic, 'file' | 'line' | 'column'> = {}): Diagnostic {
  const result: Diagnostic = { kind, message };
  if (where.file !== undefined) result.file = where.file;
  if (where.line !== undefined) result.line = where.line;
  if (where.column !== undefined) result.column = where.column;
  return result;
}

export const manifestInvalid = (file: string, message: string): Diagnostic => diagnostic('MANIFEST_INVALID', message, { file });

/** A bundler that threw instead of answering: the module's build failed, at its entry. */
export const bundlerFailed = (bundlerName: string, message: string, entry: string | null): Diagnostic =>
  diagnostic('BUNDLE_ERROR', `the bundler "${bundlerName}" failed: ${message}`, { file: entry ?? undefined });

/**
 * The text of a MODULE_BOUNDARY_CROSSED warning (README "Warnings"), and the module it names read
 * back from it: written and read in one place, so the grouping of a package's own structure
 * warnings cannot drift from the wording.
 */
export const boundaryCrossedText = (written: string, specifier: string): string =>
  `"${written}" is the entry of the public module ${specifier}: it is imported as that module, never bundled; write import ... from "${specifier}"`;

/** The public module a MODULE_BOUNDARY_CROSSED message names, or undefined. */
export const boundaryCrossedModule = (message: string): string | undefined => / the public module (\S+): it is imported as that module/.exec(message)?.[1];

/**
 * Why a manifest that is there is not read (README "Files that are not files"): it is `kind` (a
 * FIFO, a directory), as the words of `src/regular-files.ts` say it, never opened to find out.
 */
export const notAFileText = (file: string, kind: string): string =>
  `"${file}" is ${kind}, not a regular file: a manifest is read from a regular file only${kind === 'a directory' ? '' : ' (a FIFO would wait for a writer forever)'}; put a regular file there`;
