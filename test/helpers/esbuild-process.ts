// esbuild's process as the kernel sees it: the child of this process whose command is esbuild's
// binary, found in /proc (Linux), and killed as a crash would end it.
import childProcess from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { waitFor } from './wait-for.js';

/** The pid of esbuild's process, the child of this one whose command is esbuild's binary (read from /proc/NNN/stat), or null. */
export function esbuildChild(): number | null {
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
    if (command === 'esbuild' && state !== 'Z' && Number(parent) === process.pid) return Number(name);
  }
  return null;
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
 * `restore` spawns as before.
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
  return { started, restore: () => void (childProcess.spawn = spawn) };
}

/** Kills each esbuild process found in /proc, as a crash would end it, until `stop`; `killed`: their pids. */
export function killingEachEsbuild(): { killed: number[]; stop(): Promise<void> } {
  const killed: number[] = [];
  let killing = true;
  const loop = (async () => {
    while (killing) {
      const pid = esbuildChild();
      if (pid !== null && !killed.includes(pid)) {
        process.kill(pid, 'SIGKILL');
        killed.push(pid);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return { killed, stop: () => ((killing = false), loop) };
}
