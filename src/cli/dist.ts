// `core dist [--out DIR]`: the production output of every module as static files (README
// "Distribution: core dist"). Parses the arguments and prints; src/dist/ does the work.
import path from 'node:path';
import { parseCommandLine } from './command-line.js';
import { remoteCacheSettings } from '../io/remote-cache/settings.js';
import { describeRemoteRestored } from '../store/events.js';
import { distribute, LOCAL_CDN, type DistributionProgress, type DistributionResult, type PackageSummary } from '../dist/distribute.js';
import { DISTRIBUTION_MANIFEST } from '../dist/output-paths.js';
import { DIAGNOSTIC_KINDS } from '../codes.js';
import type { Diagnostic } from '../workspace/diagnostics.js';
import { formatBytes } from './format-bytes.js';
import { UsageError } from './usage-error.js';
import { workspaceDir } from './workspace-dir.js';

export const DIST_HELP = `Usage: core dist [--out DIR] [--cdn ORIGIN]

Writes the production output (minified, no source map; browser code for web modules,
Node.js code for node-only ones) of every valid public module of the workspace in the
current directory as static files:

  DIR/<package>@<version>/modules/<subpath>.js
  DIR/<package>@<version>/styles/<subpath>.css        when the module has a stylesheet
  DIR/<package>@<version>/assets/<subpath>/<file>     each declared asset
  DIR/${DISTRIBUTION_MANIFEST}                         every output with its hash and size,
                                                     and the import map of the modules
  DIR/index.html                                     the page of the preview entry (core.json
                                                     "preview"), where no other file of that
                                                     name is: any static file server shows it

Import map addresses are relative to DIR ("./@acme/lib@1.2.0/modules/format.js"): they
work as they are for a page at the root of DIR. No manifest is ever rewritten. Files a
previous run listed in ${DISTRIBUTION_MANIFEST} and this run no longer writes are removed;
nothing else in DIR is touched. A file at an output's place (${DISTRIBUTION_MANIFEST}
included) is replaced only when a previous run's record lists it with the bytes it still
has; otherwise nothing at all is written (index.html alone is then skipped).

Options:
  --out DIR      the output directory (default: dist, in the workspace)
  --cdn ORIGIN   the CDN origin (https://esm.sh, for instance) index.html maps each package
                 from outside the workspace to, at its installed version, as the preview
                 does; without one (or with "local", which no static file server answers)
                 an entry importing such a package gets no index.html, and stderr says why

Environment:
  CORE_CDN_ORIGIN           the CDN origin, when --cdn is not given
  CORE_REMOTE_CACHE         the team's remote cache, asked for each module's production
                            build before building it, over core.json's remoteCache.url;
                            "off": none (see core cache)
  CORE_REMOTE_CACHE_HEADER  a header sent to it, "Name: value" (a credential)

Exit codes: 0 every module written; 1 a module or manifest is invalid (each is named with
its diagnostics; the valid modules are still written), a link in the output directory
leads a file's folder out of it (that file is not written), or a file no earlier run wrote
is at an output's place (nothing is written); 2 wrong usage or no core.json. index.html
not written changes none of them: it is the one output nothing imports.
`;

export async function distCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine({ args, options: { out: { type: 'string' }, cdn: { type: 'string' } }, allowPositionals: true, strict: true });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"; name the output directory with --out DIR`);
  if (values.out !== undefined && values.out.trim() === '') throw new UsageError('--out needs a directory');
  const cdnOrigin = cdnOriginOf(values.cdn);
  const root = workspaceDir();
  const out = path.resolve(values.out ?? path.join(root, 'dist'));

  const progress = createProgress(process.stdout);
  const remote = remoteCacheSettings(root);
  if (remote.problem) process.stderr.write(`core dist: the team's remote cache is not used: ${remote.problem}\n`);
  const result = await distribute({ root, out, onProgress: progress.update, remoteCache: remote.settings ? { settings: remote.settings } : null, cdnOrigin });
  progress.end();

  const shown = path.relative(process.cwd(), out) || '.';
  if (result.wrote) reportWritten(result, shown);
  if (result.wrote && !result.page.written && (result.page.unresolved || result.page.unserved)) process.stderr.write(`core dist: no page written: ${result.page.reason}${result.page.unresolved && cdnOrigin === LOCAL_CDN ? ` ("local" is the service itself, which no static file server answers)` : ''}\n`);
  if (result.interrupted) {
    // Stopped by the signal once every file and the record were written (README "Distribution: core dist").
    process.stderr.write(`core dist: ${result.interrupted} came while writing ${shown}: every file and ${DISTRIBUTION_MANIFEST} were written first\n`);
    process.kill(process.pid, result.interrupted);
  }
  // The selection is core run's: told, never a reason to fail (README "Distribution: core dist").
  for (const problem of result.selectionDiagnostics ?? []) process.stderr.write(`core dist: every module was written whatever the selection says: ${formatDiagnostic(problem)}\n`);
  if (result.ok) return 0;

  const report: string[] = [];
  if (result.occupied) {
    // One line, before anything else: nothing at all was written, whatever follows.
    const { record } = result.occupied;
    report.push(record ? `core dist: nothing written: ${path.join(shown, record)} (a file of yours?); move it away, or name another directory with --out` : describeOccupied(result.occupied, shown));
  }
  if (result.outsideOut) report.push(`core dist: ${plural(result.outsideOut.length, 'file')} not written: a link in ${shown} leads ${result.outsideOut.length === 1 ? 'its folder' : 'their folders'} out of it (nothing is written outside the output directory by its real path); remove the link: ${result.outsideOut.join(', ')}`);
  if (result.workspaceDiagnostics.length > 0) {
    report.push('core dist: the workspace manifests have problems; the modules they declare were not written:');
    for (const problem of result.workspaceDiagnostics) report.push(`  ${formatDiagnostic(problem)}`);
  }
  if (result.invalid.length > 0) {
    report.push(`core dist: ${plural(result.invalid.length, 'module')} ${result.invalid.length === 1 ? 'is' : 'are'} invalid and ${result.invalid.length === 1 ? 'was' : 'were'} not written:`);
    for (const { module, diagnostics } of result.invalid) {
      report.push(`  ${module.specifier}`);
      for (const problem of diagnostics) report.push(`    ${formatDiagnostic(problem)}`);
    }
  }
  process.stderr.write(`${report.join('\n')}\n`);
  return 1;
}

// What is at each place, by kind (README "Distribution: core dist"): a directory is no file, and a
// file an earlier version listed without its hash was written by core dist.
function describeOccupied({ paths, directories = [], unhashed = [] }: NonNullable<DistributionResult['occupied']>, shown: string): string {
  const named = (relatives: readonly string[]) => relatives.map((relative) => path.join(shown, relative)).join(', ');
  const others = paths.filter((relative) => !directories.includes(relative) && !unhashed.includes(relative));
  const parts: string[] = [];
  if (others.length > 0) parts.push(`${plural(others.length, 'file')} at an output's place that no earlier core dist wrote, or changed since (no record of it lists those bytes): ${named(others)}`);
  if (directories.length > 0) parts.push(`${directories.length === 1 ? 'a directory' : `${directories.length} directories`} at an output's place: ${named(directories)}`);
  if (unhashed.length > 0) parts.push(`${plural(unhashed.length, 'file')} an earlier version of core dist wrote, whose record lists ${unhashed.length === 1 ? 'it' : 'them'} without a hash, so ${unhashed.length === 1 ? 'it' : 'they'} cannot be told from a file of yours (remove ${unhashed.length === 1 ? 'it' : 'them'} once): ${named(unhashed)}`);
  return `core dist: nothing written: ${parts.join('; ')}; move ${paths.length === 1 ? 'it' : 'them'} away, or name another directory with --out`;
}

// `--cdn`, else CORE_CDN_ORIGIN, as `core run` takes them (README "Distribution: core dist"):
// an origin the page's import map can name, or `local`; null when neither is given.
function cdnOriginOf(option: string | undefined): string | null {
  const given = option?.trim() || process.env.CORE_CDN_ORIGIN?.trim() || null;
  if (given === null || given === LOCAL_CDN) return given;
  const from = option?.trim() ? '--cdn' : 'CORE_CDN_ORIGIN';
  let url: URL | null = null;
  try {
    url = new URL(given);
  } catch {
    // Said below, as any other origin the page cannot name.
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash) throw new UsageError(`${from} "${given}" is no origin: give one such as https://esm.sh, or "local"`);
  return given.replace(/\/+$/, '');
}

function reportWritten(result: DistributionResult, shown: string): void {
  const files = result.manifest.outputs.length;
  const bytes = result.manifest.outputs.reduce((sum, output) => sum + output.size, 0);
  process.stdout.write(`wrote ${plural(result.manifest.modules.length, 'module')} (${plural(files, 'file')}, ${formatBytes(bytes)}) and ${DISTRIBUTION_MANIFEST} to ${shown}\n`);
  if (result.page.written) process.stdout.write(`wrote the page ${path.join(shown, result.page.path)} for ${result.page.entry}: serve ${shown} with any static file server\n`);
  else if (!result.page.unresolved && !result.page.unserved) process.stdout.write(`no page written: ${result.page.reason}\n`);
  if (result.removed.length > 0) process.stdout.write(`removed ${plural(result.removed.length, 'file')} an earlier run wrote\n`);
  if (result.removedTemporaries) process.stdout.write(`removed ${plural(result.removedTemporaries.length, 'temporary file')} an earlier run stopped while writing left: ${result.removedTemporaries.map((relative) => path.join(shown, relative)).join(', ')}\n`);
  if (result.leftChanged) process.stdout.write(`left ${plural(result.leftChanged.length, 'file')} an earlier run listed and this one no longer writes, changed since (or not inside the output directory by its real path): ${result.leftChanged.join(', ')}\n`);
  if (result.remoteCache) process.stdout.write(`${describeRemoteRestored({ ...result.remoteCache, hits: result.remoteCache.builds.length })}; the rest built here\n`);
}

// One line per package once every module is built and the names they import are judged (README
// "Distribution: core dist"): a line counts what stays written. On a terminal a status line below
// them counts the modules; elsewhere (a CI log, a pipe) only the plain lines are printed.
function createProgress(stream: NodeJS.WriteStream) {
  const live = stream.isTTY === true;
  let status = '';
  const setStatus = (next: string) => {
    if (status) stream.write('\r\x1b[2K');
    status = next;
    if (status) stream.write(status);
  };
  return {
    update(event: DistributionProgress) {
      if (event.type === 'package.done') {
        const kept = status;
        setStatus('');
        stream.write(`${formatPackage(event.summary)}\n`);
        setStatus(kept);
      } else if (live && event.type === 'started') {
        setStatus(event.modules > 0 ? `building 0/${event.modules} modules` : '');
      } else if (live && event.type === 'module.done') {
        setStatus(`building ${event.done}/${event.total} modules`);
      }
    },
    end: () => setStatus(''),
  };
}

function formatPackage(summary: PackageSummary): string {
  const parts = [plural(summary.written, 'module'), plural(summary.files, 'file'), formatBytes(summary.bytes)];
  if (summary.invalid > 0) parts.push(`${summary.invalid} invalid`);
  return `${summary.invalid > 0 ? '✗' : '✓'} ${summary.name}@${summary.version}  ${parts.join(', ')}`;
}

function formatDiagnostic(problem: Diagnostic): string {
  const where = problem.file ? ` ${problem.file}${problem.line ? `:${problem.line}${problem.column ? `:${problem.column}` : ''}` : ''}` : '';
  return `${problem.kind}${where}: ${problem.message} (${DIAGNOSTIC_KINDS[problem.kind].remedy})`;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

