// `core replay <file> [--until SEQ] [--trace] [--chrome-trace OUT]`: folds a recorded log with the service's own
// reducer and prints the `/state` report it yields, or, with --trace, each change of a
// module's status or diagnostics with the event that caused it.
import fs from 'node:fs';
import { parseCommandLine } from './command-line.js';
import { LogFormatError, lastSession, parseLog, replay, trace } from '../store/replay.js';
import { chromeTrace } from '../store/chrome-trace.js';
import { selectReport } from '../store/selectors.js';
import { formatTrace } from './format-trace.js';
import { UsageError } from './usage-error.js';
import { describeFileError } from './file-error.js';

export const REPLAY_HELP = `Usage: core replay <file> [--until SEQ] [--trace] [--chrome-trace OUT]

Folds an event log written by \`core run --record <file>\` (or saved from GET /log) with the
service's reducer, without building anything, and prints the /state report it yields as
JSON: exactly what the live service answered at that point.

Options:
  --until SEQ   stop after the event SEQ (of the last session in the file; default: its end)
  --trace       print instead, for each event that changed a module's status or
                diagnostics, the event and the change (for a person to read)
  --chrome-trace OUT
                write the builds as a Trace Event Format file (JSON) that Perfetto
                (ui.perfetto.dev) and chrome://tracing open: one track per build lane

A log from a newer or unknown event format is refused (exit 1), never misread; a last
line cut off by a killed server is skipped with a warning.
`;

export async function replayCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine({
    args,
    options: { until: { type: 'string' }, trace: { type: 'boolean' }, color: { type: 'boolean' }, 'chrome-trace': { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError('name one log file');
  const file = positionals[0]!;
  const until = values.until === undefined ? undefined : Number(values.until);
  if (until !== undefined && (!Number.isInteger(until) || until < 0)) throw new UsageError(`--until takes an event seq (a whole number); got "${values.until}"`);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    process.stderr.write(`core replay: cannot read ${file}: ${describeFileError(error)}\n`);
    return 1;
  }
  let parsed;
  try {
    parsed = parseLog(text, file);
  } catch (error) {
    if (!(error instanceof LogFormatError)) throw error;
    process.stderr.write(`core replay: ${error.message}\n`);
    return 1;
  }
  for (const warning of parsed.warnings) process.stderr.write(`core replay: warning: ${warning}\n`);
  const events = lastSession(parsed.events, until);
  const last = events.at(-1)?.seq;
  if (until !== undefined && last !== undefined && until > last) {
    process.stderr.write(`core replay: warning: the log's last session ends at event ${last}; --until ${until} shows its end\n`);
  }
  const traceFile = values['chrome-trace'];
  if (traceFile !== undefined) {
    if (traceFile === '') throw new UsageError('--chrome-trace takes the file to write');
    try {
      fs.writeFileSync(traceFile, `${JSON.stringify(chromeTrace(events))}\n`);
    } catch (error) {
      process.stderr.write(`core replay: cannot write ${traceFile}: ${describeFileError(error)}\n`);
      return 1;
    }
    const builds = events.filter((event) => event.type === 'build.started').length;
    process.stderr.write(`core replay: wrote ${traceFile} (${builds} build${builds === 1 ? '' : 's'}); open it in ui.perfetto.dev or chrome://tracing\n`);
    if (!values.trace) return 0;
  }
  if (values.trace) {
    const color = values.color ?? (process.stdout.isTTY === true && !process.env.NO_COLOR);
    process.stdout.write(formatTrace(trace(events), { color }));
    return 0;
  }
  process.stdout.write(`${JSON.stringify(selectReport(replay(events)), null, 2)}\n`);
  return 0;
}
