// esbuild's process as the kernel sees it: the child of this process whose command is esbuild's
// binary, found in /proc (Linux), and killed as a crash would end it.
import childProcess from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { waitFor } from './wait-for.js';

/** The pid of esbuild's live process, the child of this one whose command is esbuild's binary, or null. */
export function esbuildChild(): number | null {
  const live = esbuildChildren().find((child) => child.state !== 'Z');
  return live?.pid ?? null;
}

/**
 * The esbuild processes this thread started, recorded from the run's start (test/hooks.ts): tsx's
 * loader thread (`--import=tsx`) runs an esbuild process of its own, a child of this process too,
 * whenever it compiled a file its cache lacked. Taken for the service's, it was killed in its
 * place, and the service's process lived on.
 */
const startedHere = new Set<number>();

/** Records the pid of every esbuild process this thread starts, until the returned restore. */
export function recordEsbuildStarts(): () => void {
  const spawn = childProcess.spawn;
  // esbuild's JavaScript calls `spawn` of the module's exports (node_modules/esbuild/lib/main.js, ensureServiceIsRunning).
  childProcess.spawn = ((...args: Parameters<typeof spawn>) => {
    const child = spawn(...args);
    if (path.basename(String(args[0])) === 'esbuild' && child.pid !== undefined) startedHere.add(child.pid);
    return child;
  }) as typeof spawn;
  return () => void (childProcess.spawn = spawn);
}

/**
 * Every child of this process whose command is esbuild's binary (read from /proc/NNN/stat) and
 * that this thread started, with the kernel's letter for its state: R running, S sleeping, T
 * stopped, Z ended and not yet reaped.
 */
export function esbuildChildren(): Array<{ pid: number; state: string }> {
  const children: Array<{ pid: number; state: string }> = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // "pid (comm) state ppid ...": the command may hold spaces and parentheses, so the last ")" ends it.
    const close = stat.lastIndexOf(')');
    const command = stat.slice(stat.indexOf('(') + 1, close);
    const [state, parent] = stat.slice(close + 2).split(' ');
    if (command === 'esbuild' && Number(parent) === process.pid && startedHere.has(Number(name))) children.push({ pid: Number(name), state: state! });
  }
  return children;
}

/** Kills esbuild's process (SIGKILL) and waits until it is gone; returns its pid. */
export async function killEsbuild(): Promise<number> {
  const pid = await waitFor(() => esbuildChild() ?? undefined, { timeout: 60_000, what: "esbuild's process" });
  process.kill(pid, 'SIGKILL');
  await waitFor(() => esbuildChild() !== pid, { timeout: 60_000, what: `esbuild's process ${pid} to end` });
  return pid;
}


/**
 * Every esbuild process this process starts from now on is stopped (SIGSTOP) as it is spawned,
 * before it can answer: no build of it ends, so a test that then kills it (`killEsbuild`) kills
 * it with its calls unanswered, however fast it would have been. `started` lists their pids;
 * `restore` spawns as before, and kills those still stopped: a stopped process ignores the
 * SIGTERM of esbuild's `stop()`, and one left so would stay, stopped, a child of this process,
 * for every later test to find (the "hung process" of test/reliability/engine-death.test.ts).
 */
export function esbuildHeldAtStart(): { started: number[]; restore(): void } {
  const started: number[] = [];
  const spawn = childProcess.spawn;
  // esbuild's JavaScript calls `spawn` of the module's exports (node_modules/esbuild/lib/main.js, ensureServiceIsRunning).
  childProcess.spawn = ((...args: Parameters<typeof spawn>) => {
    const child = spawn(...args);
    if (path.basename(String(args[0])) === 'esbuild' && child.pid !== undefined) {
      process.kill(child.pid, 'SIGSTOP');
      started.push(child.pid);
    }
    return child;
  }) as typeof spawn;
  const restore = () => {
    childProcess.spawn = spawn;
    for (const { pid, state } of esbuildChildren()) if (started.includes(pid) && state === 'T') process.kill(pid, 'SIGKILL');
  };
  return { started, restore };
}

/**
 * Kills each esbuild process found in /proc, as a crash would end it, until `stop`, which looks
 * once more after the loop ends (a process started since its last look is not left); `killed`:
 * their pids. Every child found is killed, not only the first: one killed before and not yet
 * reaped must not hide a new one.
 */
export function killingEachEsbuild(): { killed: number[]; stop(): Promise<void> } {
  const killed: number[] = [];
  let killing = true;
  const killNew = () => {
    for (const { pid, state } of esbuildChildren()) {
      if (state === 'Z' || killed.includes(pid)) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        continue; // ended meanwhile
      }
      killed.push(pid);
    }
  };
  const loop = (async () => {
    while (killing) {
      killNew();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    killNew();
  })();
  return { killed, stop: () => ((killing = false), loop) };
}

/**
 * Every esbuild process this process starts from now on, as Node's child process object (its
 * pipes), until `restore`, which spawns as before.
 */
export function esbuildSpawned(): { children: childProcess.ChildProcess[]; restore(): void } {
  const children: childProcess.ChildProcess[] = [];
  const spawn = childProcess.spawn;
  // esbuild's JavaScript calls `spawn` of the module's exports (node_modules/esbuild/lib/main.js, ensureServiceIsRunning).
  childProcess.spawn = ((...args: Parameters<typeof spawn>) => {
    const child = spawn(...args);
    if (path.basename(String(args[0])) === 'esbuild') children.push(child);
    return child;
  }) as typeof spawn;
  return { children, restore: () => void (childProcess.spawn = spawn) };
}
