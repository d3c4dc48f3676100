// The paths the tree watcher cannot look at (README "Links and large trees"), each with the
// error code of the call that failed, and the report of that list: once per turn, however many
// paths a burst of notices changed.
import path from 'node:path';
import { errorCode, isAbsence } from './error-code.js';

/** Paths (absolute) the watcher cannot look at, with the error code of the call that failed. */
export type Unwatched = ReadonlyMap<string, string>;

export interface UnwatchedPaths {
  has(absolute: string): boolean;
  readonly size: number;
  /** A copy of the paths: the list may change while the caller goes through them. */
  paths(): string[];
  /** A call about `absolute` failed with `error`: listed by its code, or forgotten when the code says the path is absent. */
  cannotWatch(absolute: string, error: unknown): void;
  forget(absolute: string): void;
  /** Forgets every path below the directory `absolute`. */
  forgetBelow(absolute: string): void;
  close(): void;
}

/** `report` is given a copy of the list each time it changed, at the end of the turn. */
export function createUnwatchedPaths(report: (list: Unwatched) => void): UnwatchedPaths {
  const unwatched = new Map<string, string>();
  let reporting: NodeJS.Immediate | null = null;
  const reportSoon = () => {
    reporting ??= setImmediate(() => {
      reporting = null;
      report(new Map(unwatched));
    });
  };
  const forget = (absolute: string) => {
    if (unwatched.delete(absolute)) reportSoon();
  };
  return {
    has: (absolute) => unwatched.has(absolute),
    get size() {
      return unwatched.size;
    },
    paths: () => [...unwatched.keys()],
    cannotWatch(absolute, error) {
      const code = errorCode(error);
      if (isAbsence(code)) return forget(absolute);
      if (unwatched.get(absolute) === code) return;
      unwatched.set(absolute, code);
      reportSoon();
    },
    forget,
    forgetBelow(absolute) {
      const inside = absolute + path.sep;
      for (const other of unwatched.keys()) if (other.startsWith(inside)) forget(other);
    },
    close() {
      if (reporting !== null) clearImmediate(reporting);
      reporting = null;
    },
  };
}
