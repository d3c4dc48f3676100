// The options of a command, read by node:util's parseArgs. A wrong command line is a
// UsageError of one line naming what is wrong, judged from parseArgs's own tokens: its
// errors explain themselves in sentences of their own, not meant to be read by a program.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './usage-error.js';

type CommandLineConfig = ParseArgsConfig & { args: string[] };

/** parseArgs of `config` (strict, as every command asks); throws a UsageError for an option or argument it refuses. */
export function parseCommandLine<T extends CommandLineConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  const problem = commandLineProblem(config);
  if (problem !== null) throw new UsageError(problem);
  return parseArgs(config);
}

function commandLineProblem(config: CommandLineConfig): string | null {
  const { tokens } = parseArgs({ ...config, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'positional' && !config.allowPositionals) return `unexpected argument ${token.value}`;
    if (token.kind !== 'option') continue;
    const declared = config.options && Object.hasOwn(config.options, token.name) ? config.options[token.name] : undefined;
    if (declared === undefined) return `unknown option ${token.rawName}`;
    // A value that starts with "-" and was not written `--name=value` is the next option, not the value.
    const valueMissing = token.value === undefined || (!token.inlineValue && token.value.startsWith('-'));
    if (declared.type === 'string' && valueMissing) return `${token.rawName} needs a value`;
    if (declared.type === 'boolean' && token.value !== undefined) return `${token.rawName} takes no value`;
  }
  return null;
}
