// Runs the `core` command line from the TypeScript sources in a child process, as a user
// would run it: its own working directory, exit code and output streams.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_DIR } from '../helpers/workspace.js';

export interface CoreRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

// tsx by its address: the child runs in a workspace directory, where `tsx` does not resolve.
const TSX = import.meta.resolve('tsx');
const MAIN = pathToFileURL(path.join(PROJECT_DIR, 'src/cli/main.ts')).href;
const SCRIPT = `import(${JSON.stringify(MAIN)}).then(({ main }) => main(process.argv.slice(1))).then((code) => { process.exitCode = code; });`;

/** The child process of `core <args>`, started: for a test that signals it while it runs. */
export function startCore(cwd: string, args: string[]): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, ['--import', TSX, '--input-type=module', '--eval', SCRIPT, '--', ...args], {
    cwd,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function runCore(cwd: string, args: string[]): Promise<CoreRun> {
  return new Promise((resolve, reject) => {
    const child = startCore(cwd, args);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
