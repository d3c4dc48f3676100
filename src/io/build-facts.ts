// A finished build as the fact the store records: `build.succeeded` with the outputs put in
// the output cache by content hash, or `build.failed`; either with the inputs read and their
// hashes, and the bare imports found, placed in their files.
import { BundlerUnavailable, EngineUnavailable, type BundleResult } from '../bundlers/types.js';
import type { OutputCache } from '../outputs/output-cache.js';
import type { Fact, InputHashes, OutputRef } from '../store/events.js';
import { bundlerFailed, diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import { pathRecord } from '../workspace/path-records.js';
import type { FileHashes } from './file-hashes.js';
import { hashInputs, namedFiles, type InputsBefore } from './build-inputs.js';
import type { ImportLocator } from './import-locations.js';

export interface FactContext {
  build: number;
  variant: string;
  previousInputs: InputHashes | null;
  before: InputsBefore;
  startedAt: number;
  /** The shared files the module was asked to import (README "Shared files"). */
  shared?: Record<string, string>;
  /** Whether the watcher proves a known input unwritten since `before` was taken (`hashInputs`). */
  unwritten?: (path: string) => boolean;
}

export function createBuildFacts(hashes: FileHashes, outputs: OutputCache, locate: ImportLocator): (result: BundleResult, context: FactContext) => Fact {
  return (result, { build, variant, previousInputs, before, startedAt, shared: sharedFiles, unwritten }) => {
    const base = { build, module: result.specifier, variant };
    if (result.errors.length > 0 || !result.code) {
      // What could fix a failure includes what the module read when it last built, and the
      // files its diagnostics name.
      const paths = [...new Set([...Object.keys(previousInputs ?? {}), ...result.inputs, ...namedFiles(hashes, result.errors)])];
      const inputs = hashInputs(hashes, paths, before, startedAt, unwritten);
      return { type: 'build.failed', ...base, imports: locate(result.imports, inputs), errors: placedWhereRead(result.errors, result.placedFrom, inputs), inputs };
    }
    const chunks = result.chunks ? chunkRefs(outputs, result.chunks) : undefined;
    const made = { code: outputs.put(result.code), styles: result.styles ? outputs.put(result.styles) : null, ...(chunks ? { chunks } : {}) };
    // The shared files it was asked to import: a copy of one it still made cannot be avoided (README "Shared files").
    const shared = Object.keys(sharedFiles ?? {});
    const inputs = hashInputs(hashes, result.inputs, before, startedAt, unwritten);
    return { type: 'build.succeeded', ...base, imports: locate(result.imports, inputs), outputs: made, inputs, ...(result.resolution?.length ? { resolution: result.resolution } : {}), ...(result.warnings?.length ? { warnings: placedWhereRead(result.warnings, result.placedFrom, inputs) } : {}), ...(shared.length > 0 ? { shared } : {}), ...(result.links ? { links: result.links } : {}), ...(result.chunkLinks ? { chunkLinks: result.chunkLinks } : {}), ...(result.shims ? { shims: result.shims } : {}), ...(result.sharedImports?.length ? { sharedImports: locate(result.sharedImports, inputs) } : {}) };
  };
}

/**
 * The errors (or warnings), each placed by a read of its file after the build (`placedFrom`) kept
 * at its place only if that read hashed as the build's read did (its input's hash): a file saved
 * between the two (its rebuild still to come) names the file without a line, never a line of text
 * the build did not see (README "Code frames").
 */
function placedWhereRead(diagnostics: Diagnostic[], placedFrom: BundleResult['placedFrom'], inputs: InputHashes): Diagnostic[] {
  if (!placedFrom) return diagnostics;
  return diagnostics.map((error) => {
    const read = error.file === undefined ? undefined : placedFrom[error.file];
    if (read === undefined || read === inputs[error.file!]) return error;
    const { line: _line, column: _column, ...unplaced } = error;
    return unplaced;
  });
}

/** The bundler could not run at all: every module of the job says why. */
export function bundlerFailedFacts(hashes: FileHashes, job: { build: number; variant: string; bundler: { name: string }; modules: { module: { specifier: string; entry: string | null; dir: string }; previousInputs: InputHashes | null; manifest?: string }[] }, error: unknown): Fact[] {
  const message = error instanceof Error ? error.message : String(error);
  return job.modules.map(({ module, previousInputs, manifest }): Fact => ({
    type: 'build.failed',
    build: job.build,
    module: module.specifier,
    variant: job.variant,
    errors: [
      error instanceof BundlerUnavailable
        ? diagnostic('BUNDLE_ERROR', `${module.specifier} cannot be built: ${message}; install it in the workspace, or correct "core.bundler" or "bundlers" in ${manifest ?? 'its package.json'}`, { file: manifest ?? module.entry ?? undefined })
        : error instanceof EngineUnavailable
          ? diagnostic('ENGINE_UNAVAILABLE', `${module.specifier} was not built: ${message}; save a file to build again`, { file: module.entry ?? undefined })
          : bundlerFailed(job.bundler.name, message, module.entry),
    ],
    imports: [],
    // A spread makes a literal, keyed by the module's paths and kept (ARCHITECTURE.md "One module's requests at 10,000 modules").
    inputs: Object.assign(pathRecord<string | null>(), previousInputs, hashInputs(hashes, [module.entry!, `${module.dir}/`], new Map(), 0)),
  }));
}

// Keyed by a package's shared files, kept with the build (ARCHITECTURE.md "One module's requests at 10,000 modules").
function chunkRefs(outputs: OutputCache, chunks: Readonly<Record<string, Uint8Array>>): Record<string, OutputRef> {
  const refs = pathRecord<OutputRef>();
  for (const [specifier, code] of Object.entries(chunks)) refs[specifier] = outputs.put(code);
  return refs;
}
