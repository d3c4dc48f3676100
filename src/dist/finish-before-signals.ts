// The write phase of `core dist` runs to its end when Ctrl-C (SIGINT) or SIGTERM comes meanwhile
// (README "Distribution: core dist"): its renames and the record are synchronous, so a listener
// here only runs once they are done; the caller then stops by that signal. Without one, the
// signal would stop the run between two renames (the pending record still makes that harmless).
const STOPPING: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

/** `work`'s result, and the signal that came while it ran (null when none). */
export async function finishBeforeSignals<T>(work: () => T): Promise<{ result: T; signal: NodeJS.Signals | null }> {
  let signal: NodeJS.Signals | null = null;
  const note = (received: NodeJS.Signals) => {
    signal ??= received;
  };
  for (const name of STOPPING) process.on(name, note);
  try {
    const result = work();
    // A signal that came during `work` reaches its listener when the loop next polls: the turn
    // after this one at the latest (this one may be past its poll already).
    for (let turn = 0; turn < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    return { result, signal };
  } finally {
    for (const name of STOPPING) process.off(name, note);
  }
}
