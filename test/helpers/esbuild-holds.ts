// Whether anything holds esbuild's process: each build in flight and each context not disposed
// keeps it referenced (esbuild's own reference count); idle, it is unreferenced. Stopped while
// something holds it, its process prints "fatal error: all goroutines are asleep - deadlock!".
// Child processes are told apart from the rest by Node only by kind: a test compares the count
// before and after, in a stretch where it starts no other process.

/** The child processes that keep this process alive now (esbuild's, while anything holds it). */
export const esbuildHolds = (): number => process.getActiveResourcesInfo().filter((resource) => resource === 'ProcessWrap').length;
