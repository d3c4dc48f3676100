// `core run`: serve the workspace until SIGINT or SIGTERM.
import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import { parseCommandLine } from './command-line.js';
import { ERROR_CODES } from '../codes.js';
import { ListenError, PORT_ATTEMPTS, startService, type Service } from '../service.js';
import { recordFileProblem } from '../io/event-file.js';
import { remoteCacheSettings, type RemoteCacheSettings } from '../io/remote-cache/settings.js';
import { startVariants } from '../io/remote-cache/start-restore.js';
import { writeSettings, uploadServiceBuilds } from './cache-push.js';
import { describeRemoteRestored } from '../store/events.js';
import { DEVELOPMENT_EXTENSION } from '../development/name.js';
import { UsageError } from './usage-error.js';
import { banner, followChanges, readyLine, showProgress } from './run-terminal.js';
import { LOG_LEVELS, shows, type LogLevel } from './live-lines.js';
import { terminalStyle, wantsColor, type TerminalStyle } from './terminal-style.js';
import type { ServiceState } from '../store/state.js';
import { workspaceDir } from './workspace-dir.js';

export const DEFAULT_PORT = 4800;

/** After SIGINT or SIGTERM, the longest a clean stop may take before the process exits anyway. */
export const STOP_GRACE_MS = 1500;

export const RUN_HELP = `Usage: core run [DIR] [--dev] [--port N] [--strict-port] [--host H] [--allowed-host H]...
                [--record FILE] [--cdn ORIGIN] [--log-level L] [--no-cache] [--remote-cache-write]

Serves the workspace in DIR (default: the current directory), the one with core.json.
Relative paths of the options (--record) are read from the current directory.

Options:
  --dev              load the development extension (${DEVELOPMENT_EXTENSION}): the
                     preview at /preview/ and stylesheet push (also: CORE_SERVICE_EXTENSIONS)
  --port N           port to listen on (default ${DEFAULT_PORT}, or the next free one of the
                     ${PORT_ATTEMPTS - 1} following; 0 takes any free port). A port given here is kept:
                     if it is busy, core run says so and exits 1
  --strict-port      keep the default port too: exit 1 if it is busy (default: off)
  --host H           address to listen on (default 127.0.0.1, loopback only)
  --allowed-host H   another host name accepted in the Host header (repeatable)
  --record FILE      append every event to FILE as NDJSON (see core replay)
  --cdn ORIGIN       the origin of packages not in development, over CORE_CDN_ORIGIN;
                     "local": the service itself, from node_modules (default: CORE_CDN_ORIGIN)
  --log-level L      what the terminal tells while serving: silent, error, warn, info
                     or debug (every event) (default info)
  --no-cache         neither read nor write the build cache (see core cache)
  --remote-cache-write  once the first builds are done, upload them to the team's remote
                     cache (for CI on a protected branch only; see core cache push)

Environment:
  CORE_SERVICE_EXTENSIONS  comma-separated extension specifiers, such as
                           @core-js/packages/development (the preview and stylesheet push)
  CORE_CDN_ORIGIN          origin serving packages not in development, such as https://esm.sh
  CORE_CACHE_DIR           where the build cache lives (default: see core cache)
  CORE_WATCH_LIMIT         the most directories the watcher watches (default 50000); a
                           change past it is seen by the next answer, not pushed
  CORE_REMOTE_CACHE        the team's remote cache, read after the build cache, over
                           core.json's remoteCache.url; "off": none (see core cache)
  CORE_REMOTE_CACHE_HEADER a header sent to it, "Name: value" (a credential)

Colour on a terminal (NO_COLOR turns it off, FORCE_COLOR on). Stops cleanly on SIGINT and
SIGTERM (exit 0).
`;

export async function runCommand(args: string[]): Promise<number> {
  const run = parseRunArguments(args);
  const remote = run.cache ? remoteCacheSettings(run.root) : { settings: null };
  if (remote.problem) process.stderr.write(`core run: the team's remote cache is not used: ${remote.problem}\n`);
  const signing = run.remoteCacheWrite ? writeSettings({ ...remote, problem: remote.problem ?? '--remote-cache-write needs a team cache: core.json "remoteCache", or CORE_REMOTE_CACHE' }) : { key: null };
  // Listening before the service starts: whoever started it may send a signal at once, and
  // without a listener SIGINT and SIGTERM would kill the process instead of stopping it.
  const stopped = stopSignal();
  const service = await startOrExplain(run, remote.settings);
  if (!service) return 1;

  const style = terminalStyle(wantsColor(process.stdout));
  const errorStyle = terminalStyle(wantsColor(process.stderr));
  const warn = (text: string) => {
    if (shows(run.logLevel, 'warn')) process.stderr.write(`${text}\n`);
  };
  // What the banner tells is what the live lines start from: a manifest changed while the first
  // builds run is told once they are done, even when a request's check has read it already.
  const told = service.internals.store.getState();
  tellStart(service, run, told, style, errorStyle, warn);
  const progress = process.stdout.isTTY && run.logLevel !== 'silent' ? showProgress(service, style) : null;
  // A signal while the first builds run stops the service without waiting for them. The line
  // tells the first settled state: the check against the disk is each request's, and a change
  // it would find is told by the live lines (a check here would stat every input again while
  // the first requests wait behind it).
  const reported = service.internals.readiness.settled(false).then(() => true);
  reported.catch(() => {}); // after a stop, whatever it ends with is nobody's concern
  const ready = await Promise.race([reported, stopped.then(() => false)]);
  progress?.unsubscribe();
  if (ready) {
    if (run.logLevel !== 'silent') process.stdout.write(readyLine(service.internals.store.getState(), performance.now(), style));
    await afterFirstBuilds(service, run, remote.settings, 'key' in signing ? signing.key : null, errorStyle, warn);
  }
  const live = ready ? followChanges(service, told, run.root, run.logLevel, errorStyle) : null;

  await stopped;
  live?.unsubscribe();
  await service.close();
  return 0;
}

/** What `core run`'s arguments and environment ask for. */
interface RunRequest {
  root: string;
  port: number;
  /** `--port` given: a busy port is kept, not moved from. */
  portGiven: boolean;
  strictPort: boolean;
  host: string;
  allowedHosts: string[];
  logLevel: LogLevel;
  extensions: string[];
  cdnOrigin: string | null;
  record: string | undefined;
  cache: boolean;
  remoteCacheWrite: boolean;
}

function parseRunArguments(args: string[]): RunRequest {
  const { values, positionals } = parseCommandLine({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'allowed-host': { type: 'string', multiple: true },
      record: { type: 'string' },
      'strict-port': { type: 'boolean' },
      'log-level': { type: 'string' },
      cdn: { type: 'string' },
      'no-cache': { type: 'boolean' },
      'remote-cache-write': { type: 'boolean' },
      dev: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 1) throw new UsageError(`name one workspace directory; got "${positionals.join('", "')}"`);
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number from 0 to 65535; got "${values.port}"`);
  const logLevel = (values['log-level'] ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}; got "${values['log-level']}"`);
  const root = workspaceDir(positionals[0]);
  const recordProblem = values.record === undefined ? null : recordFileProblem(path.resolve(values.record), root);
  if (recordProblem) throw new UsageError(`--record: ${recordProblem}; name another file`);
  const extensions = (process.env.CORE_SERVICE_EXTENSIONS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (values.dev === true && !extensions.includes(DEVELOPMENT_EXTENSION)) extensions.push(DEVELOPMENT_EXTENSION);
  return {
    root,
    port,
    portGiven: values.port !== undefined,
    strictPort: values['strict-port'] === true,
    host: values.host ?? '127.0.0.1',
    allowedHosts: values['allowed-host'] ?? [],
    logLevel,
    extensions,
    cdnOrigin: values.cdn?.trim() || process.env.CORE_CDN_ORIGIN?.trim() || null,
    record: values.record === undefined ? undefined : path.resolve(values.record),
    cache: values['no-cache'] !== true,
    remoteCacheWrite: values['remote-cache-write'] === true,
  };
}

/** Resolves at the first SIGINT or SIGTERM; from then on the process ends within the grace period. */
function stopSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      // Whatever the service is doing, it ends within the grace period; a second signal ends it at once.
      setTimeout(() => process.exit(0), STOP_GRACE_MS).unref();
      process.once('SIGINT', () => process.exit(0));
      process.once('SIGTERM', () => process.exit(0));
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** The service, or null once the reason it did not start is on stderr. */
async function startOrExplain(run: RunRequest, remoteSettings: RemoteCacheSettings | null): Promise<Service | null> {
  try {
    return await startService({
      root: run.root,
      port: run.port,
      // The default port moves to the next free one (as Vite does); a port asked for is kept.
      strictPort: run.portGiven || run.strictPort,
      host: run.host,
      allowedHosts: run.allowedHosts,
      extensions: run.extensions,
      cdnOrigin: run.cdnOrigin,
      record: run.record,
      cache: run.cache,
      remoteCache: remoteSettings ? { settings: remoteSettings } : null,
    });
  } catch (error) {
    if (error instanceof ListenError && error.code === 'PORT_IN_USE') {
      process.stderr.write(`core run: ${error.message}; stop what uses it, or pass another --port (0 takes any free port)\n`);
    } else if (error instanceof ListenError) {
      process.stderr.write(`core run: ${error.message}; pass --host with an address of this machine (default 127.0.0.1)\n`);
    } else {
      process.stderr.write(`core run: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    return null;
  }
}

/** The banner (or the bare address when silent), then what the preview lacks. */
function tellStart(service: Service, run: RunRequest, told: ServiceState, style: TerminalStyle, errorStyle: TerminalStyle, warn: (text: string) => void): void {
  const development = service.extensions.includes(DEVELOPMENT_EXTENSION);
  const { cdnOrigin, port } = run;
  // The address at once, as the contract says: a page asked for while the first builds run
  // waits for them (every answer does), and the browser starts meanwhile.
  if (run.logLevel !== 'silent') {
    process.stdout.write(banner({ state: told, url: service.url, development, cdnOrigin, movedFrom: service.port !== port && port !== 0 ? port : null, style }));
  } else {
    process.stdout.write(`${service.url}\n`);
  }
  if (!development) {
    warn(`${errorStyle.yellow('hint')} the development extension is not loaded, so only /m/, /state, /log and the dashboard are served (/preview/ answers 404 PREVIEW_NOT_LOADED); start with core run --dev (or set CORE_SERVICE_EXTENSIONS=${DEVELOPMENT_EXTENSION}) for the preview and stylesheet push`);
  } else if (!cdnOrigin) {
    warn(`${errorStyle.yellow('warning PREVIEW_CDN_UNSET')}: CORE_CDN_ORIGIN is not set, so /preview/ answers 503; to preview, ${ERROR_CODES.PREVIEW_CDN_UNSET.remedy}`);
  }
}

// A team cache that failed requests, or answered what is no entry at all (`not-json`: a proxy's
// sign-in page, a body compressed unasked), is said once: its modules were built here (README
// "A team's remote cache"). Other misses are the cache's ordinary answers: `/state` counts them.
function warnTeamCache(teamCache: NonNullable<ServiceState['remoteCache']>, errorStyle: TerminalStyle, warn: (text: string) => void): void {
  const notJson = teamCache.misses['not-json'] ?? 0;
  const failed = Object.keys(teamCache.failures).length > 0;
  if (!failed && notJson === 0) return;
  const what = failed ? 'failed some requests' : 'answered what is not an entry';
  const counted = describeRemoteRestored({ ...teamCache, misses: notJson > 0 ? { 'not-json': notJson } : {} });
  const why = notJson > 0 ? '; not-json: an answer that is no JSON, such as a proxy\'s sign-in page or a compressed body' : '';
  warn(`${errorStyle.yellow('warning')} the team cache at ${teamCache.url} ${what} (${counted})${why}; what it did not give was built here`);
}

/** Once the first builds settled: a team cache that failed requests, and the upload `--remote-cache-write` asks for. */
async function afterFirstBuilds(service: Service, run: RunRequest, remoteSettings: RemoteCacheSettings | null, signingKey: KeyObject | null, errorStyle: TerminalStyle, warn: (text: string) => void): Promise<void> {
  const teamCache = service.internals.store.getState().remoteCache;
  if (teamCache) warnTeamCache(teamCache, errorStyle, warn);
  if (!run.remoteCacheWrite || !remoteSettings) return;
  // Once, the first builds settled: what a trusted machine (CI) runs, never a developer's default.
  const state = service.internals.store.getState();
  const uploaded = await uploadServiceBuilds(service, startVariants(state.workspace), remoteSettings, signingKey);
  if (uploaded.stopped === 'denied') warn(`${errorStyle.yellow('warning')} the team cache refused a write (401 or 403): this address or credential is read-only; nothing more was uploaded`);
  else if (uploaded.stopped) warn(`${errorStyle.yellow('warning')} the upload to the team cache stopped (${uploaded.stopped}) after ${uploaded.entries} builds`);
  else warn(`${uploaded.entries} builds uploaded to the team cache at ${remoteSettings.base.href}`);
}
