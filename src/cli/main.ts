// `core <command>`: the command table. Commands parse their own arguments (node:util
// parseArgs) and call the programmatic API; no logic of their own lives here.
import { VERSION } from '../version.js';
import { COMMANDS, usage } from './commands.js';
import { UsageError } from './usage-error.js';

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
    process.stderr.write(`core: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(command.help);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`core ${name}: ${error.message}\n\n${command.help}`);
      return 2;
    }
    if (error instanceof Error && (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`core ${name}: ${error.message}\n\n${command.help}`);
      return 2;
    }
    throw error;
  }
}
