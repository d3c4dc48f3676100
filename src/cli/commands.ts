// Every command, its help text and its handler.
import { VERSION } from '../version.js';
import { runCommand, RUN_HELP } from './run.js';
import { selectCommand, SELECT_HELP } from './select.js';
import { replayCommand, REPLAY_HELP } from './replay.js';
import { distCommand, DIST_HELP } from './dist.js';
import { initCommand, INIT_HELP } from './init.js';
import { cacheCommand, CACHE_HELP } from './cache.js';

export interface Command {
  summary: string;
  help: string;
  run(args: string[]): Promise<number>;
}

export const COMMANDS: Record<string, Command> = {
  run: { summary: 'serve the workspace in DIR (default: the current directory)', help: RUN_HELP, run: runCommand },
  select: { summary: 'choose the packages in development (.core/selection.json)', help: SELECT_HELP, run: selectCommand },
  replay: { summary: 'fold a recorded event log and print the /state report', help: REPLAY_HELP, run: replayCommand },
  dist: { summary: 'write the production output of every module as static files', help: DIST_HELP, run: distCommand },
  init: { summary: 'create a workspace from the template in an empty directory', help: INIT_HELP, run: initCommand },
  cache: { summary: "show or clear (--clear) the build cache, or upload it to the team's cache (push)", help: CACHE_HELP, run: cacheCommand },
};

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  core ${name.padEnd(width)}  ${command.summary}`);
  return `core ${VERSION}: a development server and packager for workspaces of ES modules

Usage:
${lines.join('\n')}
  core --help | core <command> --help
  core --version

Exit codes: 0 success, 1 failure (an invalid module in dist, a port in use, an unreadable log),
2 wrong usage (an unknown command or option, no core.json).
`;
}
