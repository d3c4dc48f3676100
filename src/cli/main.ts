// `core <command>`: the command table. Commands parse their own arguments (command-line.ts,
// over node:util parseArgs) and call the programmatic API; no logic of their own lives here.
import { VERSION } from '../version.js';
import { loadOwnModules } from '../load-module.js';
import { loadHttpLayer } from '../service.js';
import { COMMANDS, usage } from './commands.js';
import { UsageError } from './usage-error.js';

/**
 * Loads the modules of the bundle a start loads late: the HTTP layer (src/service.ts), the
 * development extension and the bundlers (src/load-module.ts). The build runs it before it
 * keeps the bundle's code cache (bin/load-bundle.js), so that their code comes from it too.
 */
export async function loadDeferredModules(): Promise<void> {
  await Promise.all([loadHttpLayer(), loadOwnModules()]);
}

/** Runs the command line `args`; resolves to the exit code. */
export async function main(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    const command = topic ? COMMANDS[topic] : undefined;
    process.stdout.write(command ? command.help : usage());
    return topic && !command ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    // One line, as every usage error: the command list is one `core --help` away.
    const near = nearestCommand(name);
    process.stderr.write(`core: unknown command "${name}"${near ? `; did you mean "core ${near}"?` : ''} (core --help lists the commands: ${Object.keys(COMMANDS).join(', ')})\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(command.help);
    return 0;
  }
  try {
    return await command.run(joinDashValues(rest));
  } catch (error) {
    // A wrong command line is one line: what is wrong and where the options are listed.
    if (error instanceof UsageError) {
      process.stderr.write(`core ${name}: ${error.message} (core ${name} --help lists the options)\n`);
      return 2;
    }
    throw error;
  }
}

// The command a mistyped name most likely meant: one edit away, or the only command it
// starts (a prefix of three letters or more).
function nearestCommand(typed: string): string | null {
  const names = Object.keys(COMMANDS);
  const prefixed = typed.length >= 3 ? names.filter((name) => name.startsWith(typed)) : [];
  if (prefixed.length === 1) return prefixed[0]!;
  return names.find((name) => editDistance(name, typed) === 1) ?? null;
}

// Edits between two names, a swap of two neighbouring letters counting as one (a typo's usual shape).
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

// `--port -1` reads to node:util's parser as an option without its value ("argument is
// ambiguous"); a value that looks like a negative number is meant as the value, so it is
// joined (`--port=-1`) and then judged by the command like any other value.
function joinDashValues(args: string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    const next = args[i + 1];
    if (arg.startsWith('--') && !arg.includes('=') && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      i += 1;
    } else joined.push(arg);
  }
  return joined;
}
