// Running the `core` command (bin/core.js, which runs dist/core.cjs, made by `npm run build`)
// as a child process in a workspace: one-shot commands, and `core run` servers that are
// stopped by signal. Every child still running is killed by `killAllCores`.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_DIR } from './workspace.js';
import { waitFor } from './wait-for.js';

export const CORE_BIN = path.join(PROJECT_DIR, 'bin', 'core.js');

export interface CoreOptions {
  cwd: string;
  /** Added to the environment; CORE_SERVICE_EXTENSIONS and CORE_CDN_ORIGIN are unset unless given here. */
  env?: Record<string, string>;
}

export interface CoreResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The development environment of `core run`: the extension loaded, a CDN named. */
export const DEVELOPMENT_ENV = { CORE_SERVICE_EXTENSIONS: '@core-js/packages/development', CORE_CDN_ORIGIN: 'https://cdn.test' };

const children = new Set<ChildProcess>();

function environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.CORE_SERVICE_EXTENSIONS;
  delete env.CORE_CDN_ORIGIN;
  delete env.NODE_OPTIONS; // the test runner's loader is not the CLI's
  return { ...env, ...extra };
}

function launch(args: string[], options: CoreOptions) {
  const child = spawn(process.execPath, [CORE_BIN, ...args], { cwd: options.cwd, env: environment(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const output = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<CoreResult>((resolve) => {
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal, ...output });
    });
  });
  return { child, output, exited };
}

/** Runs `core <args>` to its end. */
export function runCore(args: string[], options: CoreOptions): Promise<CoreResult> {
  return launch(args, options).exited;
}

export interface RunningCore {
  child: ChildProcess;
  /** The base URL printed on stdout, `http://HOST:PORT/`. */
  url: string;
  port: number;
  output: { stdout: string; stderr: string };
  exited: Promise<CoreResult>;
  /** Sends `signal` and resolves to how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<CoreResult>;
}

/** Starts `core run <args>` and waits for the base URL on stdout. */
export async function startCore(args: string[], options: CoreOptions): Promise<RunningCore> {
  const { child, output, exited } = launch(['run', ...args], options);
  let ended: CoreResult | null = null;
  void exited.then((result) => (ended = result));
  const url = await waitFor(
    () => {
      if (ended) throw new Error(`core run ended (code ${ended.code}) before printing its URL; stderr: ${ended.stderr}`);
      return /^\s*(http:\/\/[^\s/]+\/)\s*$/m.exec(output.stdout)?.[1];
    },
    { timeout: 30_000, what: 'the base URL of core run on stdout' },
  );
  return {
    child,
    url,
    port: Number(new URL(url).port),
    output,
    exited,
    stop(signal = 'SIGTERM') {
      if (ended === null) child.kill(signal);
      return exited;
    },
  };
}

/** Kills every child still running (by its own pid), for after hooks. */
export async function killAllCores(): Promise<void> {
  const waiting = [...children].map((child) => new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.kill('SIGKILL');
  }));
  await Promise.all(waiting);
}
