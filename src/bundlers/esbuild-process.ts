// esbuild's process as the service knows it (Linux): the one child the service's own call started.
// Another child of this process may run esbuild's binary too (another copy of esbuild's JavaScript
// in the same program: tsx's loader thread runs one, a tool embedding the service may use esbuild
// itself): it is neither judged by the watchdog nor killed by a close (README "When esbuild's
// process dies"). esbuild's JavaScript starts its process inside the call that finds none running
// (a synchronous `child_process.spawn`) and hands out no handle to it, so the children this thread
// started (`/proc/thread-self/children`: this thread's alone, so another thread's start in the
// meantime is not among them) are read before and after each call of the service: a new one whose
// command is esbuild's is the service's process. Two small reads per call, no patched global.
import fs from 'node:fs';

/** The service's process: its pid, and its start time (the kernel's), which a later process given the same pid does not share. */
let recorded: { pid: number; startTime: string } | null = null;

/** The kernel's states of a process that has ended: a zombie (not yet reaped), dead. */
const ENDED = new Set(['Z', 'X']);

/** The pids of the processes this thread started that are not yet reaped, or null where that cannot be read. */
function threadChildren(): Set<string> | null {
  try {
    return new Set(fs.readFileSync('/proc/thread-self/children', 'utf8').split(' ').filter(Boolean));
  } catch {
    return null;
  }
}

/** What `/proc/<pid>/stat` says of a process: its command, state letter, parent and start time; null when it is gone. */
function statOf(pid: number | string): { command: string; state: string; parent: number; startTime: string } | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // "pid (comm) state ppid ...": the command may hold spaces and parentheses, so the last ")" ends it.
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return { command: stat.slice(stat.indexOf('(') + 1, close), state: fields[0]!, parent: Number(fields[1]), startTime: fields[19]! };
}

/** `call` (an esbuild call, which starts esbuild's process when none runs), recording the process it started, if it started one. */
export function recordingStart<T>(call: () => T): T {
  const before = threadChildren();
  try {
    return call();
  } finally {
    const started = before === null ? [] : [...(threadChildren() ?? [])].filter((pid) => !before.has(pid));
    const esbuilds = started.flatMap((pid) => {
      const stat = statOf(pid);
      return stat?.command === 'esbuild' ? [{ pid: Number(pid), startTime: stat.startTime }] : [];
    });
    if (esbuilds.length === 1) recorded = esbuilds[0]!;
  }
}

/**
 * The service's esbuild process: its pid while it runs (stopped included); 'ended' once it has
 * ended, reaped or not (a zombie's one thread tells nothing of where it sleeps: it is dead, not
 * unknown). Where no call of the service was seen starting the process running now (a call of
 * esbuild's made outside the service, on the same copy of esbuild, started the process the
 * service shares, maybe after stopping the one recorded), the one live esbuild child this thread
 * started is taken (another thread's, as a loader's, never is); with none, 'ended'; with several,
 * 'unknown'; and 'unknown' where none of this can be read (not Linux).
 */
export function esbuildProcess(): number | 'ended' | 'unknown' {
  if (recorded) {
    const stat = statOf(recorded.pid);
    if (stat && stat.parent === process.pid && stat.startTime === recorded.startTime && !ENDED.has(stat.state)) return recorded.pid;
  }
  return liveEsbuildOfThisThread();
}

function liveEsbuildOfThisThread(): number | 'ended' | 'unknown' {
  const children = threadChildren();
  if (children === null) return 'unknown';
  const live = [...children].filter((pid) => {
    const stat = statOf(pid);
    return stat?.command === 'esbuild' && !ENDED.has(stat.state);
  });
  if (live.length > 1) return 'unknown';
  return live.length === 1 ? Number(live[0]) : 'ended';
}
