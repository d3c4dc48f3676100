// The tree watcher's own callbacks (each `fs.watch` listener, each timer) run from the event
// loop: a throw there would end the process. Every error of the file system is caught where its
// call is made (README "Links and large trees"), so what reaches the guard is a defect, told to
// the `defect` listeners (the watch effect fails, and the supervisor reports and restarts it).

/** `callback`, made to tell a throw to the watcher's `defect` listeners instead of the event loop. */
export type Guard = <A extends unknown[]>(callback: (...args: A) => void) => (...args: A) => void;

export interface DefectListeners {
  listenerCount(event: 'defect'): number;
  emit(event: 'defect', error: unknown): unknown;
}

/** A guard for the callbacks of one watcher; nothing runs once `isClosed()`. */
export function createDefectGuard(listeners: DefectListeners, isClosed: () => boolean): Guard {
  return (callback) =>
    (...args) => {
      if (isClosed()) return;
      try {
        callback(...args);
      } catch (error) {
        // Nobody listens (a watcher used on its own): thrown, as any defect.
        if (listeners.listenerCount('defect') === 0) throw error;
        listeners.emit('defect', error);
      }
    };
}
