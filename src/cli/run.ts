// `core run`: serve the workspace until SIGINT or SIGTERM.
import { parseArgs } from 'node:util';
import { startService } from '../service.js';
import { selectReport } from '../store/selectors.js';
import { VERSION } from '../version.js';
import { DEVELOPMENT_EXTENSION } from '../development/name.js';
import { UsageError } from './usage-error.js';
import { workspaceDir } from './workspace-dir.js';

export const DEFAULT_PORT = 4800;

/** After SIGINT or SIGTERM, the longest a clean stop may take before the process exits anyway. */
export const STOP_GRACE_MS = 1500;

export const RUN_HELP = `Usage: core run [--port N] [--host H] [--allowed-host H]... [--record FILE]

Serves the workspace in the current directory (the one with core.json).

Options:
  --port N           port to listen on (default ${DEFAULT_PORT}; 0 takes any free port)
  --host H           address to listen on (default 127.0.0.1, loopback only)
  --allowed-host H   another host name accepted in the Host header (repeatable)
  --record FILE      append every event to FILE as NDJSON (see core replay)

Environment:
  CORE_SERVICE_EXTENSIONS  comma-separated extension specifiers, such as
                           @core-js/packages/development (the preview and stylesheet push)
  CORE_CDN_ORIGIN          origin serving packages not in development, such as https://esm.sh

Stops cleanly on SIGINT and SIGTERM (exit 0).
`;

export async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'allowed-host': { type: 'string', multiple: true },
      record: { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number from 0 to 65535; got "${values.port}"`);
  const root = workspaceDir();
  const extensions = (process.env.CORE_SERVICE_EXTENSIONS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const cdnOrigin = process.env.CORE_CDN_ORIGIN?.trim() || null;

  // Listening before the service starts: whoever started it may send a signal at once, and
  // without a listener SIGINT and SIGTERM would kill the process instead of stopping it.
  const stopped = new Promise<void>((resolve) => {
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

  let service;
  try {
    service = await startService({
      root,
      port,
      host: values.host ?? '127.0.0.1',
      allowedHosts: values['allowed-host'] ?? [],
      extensions,
      cdnOrigin,
      record: values.record,
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') process.stderr.write(`core run: port ${port} is in use; pass --port 0 to take any free port\n`);
    else if (code === 'EADDRNOTAVAIL') process.stderr.write(`core run: ${values.host} is not an address of this machine\n`);
    else process.stderr.write(`core run: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }

  const state = service.internals.store.getState();
  const { packages, modules } = state.workspace;
  const development = service.extensions.includes(DEVELOPMENT_EXTENSION);
  process.stdout.write(
    `core ${VERSION} serving ${root} (${packages.length} package${packages.length === 1 ? '' : 's'}, ${modules.length} module${modules.length === 1 ? '' : 's'})\n` +
      `\n  ${service.url}\n` +
      (development ? `  preview  ${service.url}preview/\n` : '') +
      `  state    ${service.url}state\n` +
      `  dashboard ${service.url} (in a browser)\n\n`,
  );
  if (!development) {
    process.stderr.write(`hint: the development extension is not loaded, so only /m/, /state, /log and the dashboard are served; set CORE_SERVICE_EXTENSIONS=${DEVELOPMENT_EXTENSION} for /preview/ and stylesheet push\n`);
  }
  if (!cdnOrigin) {
    process.stderr.write('warning PREVIEW_CDN_UNSET: CORE_CDN_ORIGIN is not set, so /preview/ answers 503 PREVIEW_CDN_UNSET; start again with CORE_CDN_ORIGIN set, for example CORE_CDN_ORIGIN=https://esm.sh\n');
  }
  for (const problem of selectReport(state).diagnostics) process.stderr.write(`warning ${problem.kind}: ${problem.message}\n`);

  await stopped;
  await service.close();
  return 0;
}
