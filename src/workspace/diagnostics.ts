// Diagnostics: what is wrong with a module or a manifest, in the shape of README "Error codes".

export type DiagnosticKind =
  | 'BUNDLE_ERROR'
  | 'DEPENDENCY_NOT_DECLARED'
  | 'DEPENDENCY_INCOMPATIBLE'
  | 'PREVIEW_BUILTIN'
  | 'PREVIEW_VERSION_UNRESOLVED'
  | 'MANIFEST_INVALID'
  /** An effect of the service keeps failing (a defect); top-level only. */
  | 'EFFECT_FAILED'
  /** Warnings: listed beside a module's status, never making it invalid. */
  | 'BUNDLE_WARNING'
  | 'MODULE_BOUNDARY_CROSSED'
  | 'NO_PUBLIC_MODULE'
  | 'HELPER_SHARED';

export interface Diagnostic {
  kind: DiagnosticKind;
  message: string;
  /** Relative to the workspace, with forward slashes. */
  file?: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  column?: number;
}

export function diagnostic(kind: DiagnosticKind, message: string, where: Pick<Diagnostic, 'file' | 'line' | 'column'> = {}): Diagnostic {
  const result: Diagnostic = { kind, message };
  if (where.file !== undefined) result.file = where.file;
  if (where.line !== undefined) result.line = where.line;
  if (where.column !== undefined) result.column = where.column;
  return result;
}

export const manifestInvalid = (file: string, message: string): Diagnostic => diagnostic('MANIFEST_INVALID', message, { file });
