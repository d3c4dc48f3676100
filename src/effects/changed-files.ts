// The paths the watch effect was told of (src/effects/watch.ts), hashed and compared with what
// the state recorded: only what the state depends on, and only when it differs, becomes a change.
// A path an event names is looked at once more a little later (`seen`): a directory made is often
// filled just after, and one notice may stand for several writes (the kernel merges notices not
// yet read).
import type { SchedulerLike, Subscription } from 'rxjs';
import { contentHash } from '../outputs/content-hash.js';
import { UNVERIFIED } from '../store/events.js';
import type { RecordedHashes } from '../store/selectors.js';
import type { FileHashes } from '../io/file-hashes.js';
import type { Guard } from '../io/watcher-guard.js';
import { pathRecord } from '../workspace/path-records.js';

/** The hash of an empty file. */
const EMPTY_FILE = contentHash('');

export interface ChangedFilesOptions {
  hashes: FileHashes;
  /** The scheduler of the second looks. */
  scheduler: SchedulerLike;
  /** How long after a change the path is looked at again. */
  settleMs: number;
  /** How long a file seen emptied waits for the rest of its save before it is reported. */
  truncationMs: number;
  /** Other workspace-relative paths of a path (through links inside the workspace: `aliases` of the watch scope). */
  aliases(relative: string): string[];
  /** What the current state recorded for these paths (`selectRecordedHashesOf`). */
  recorded(paths: Iterable<string>): RecordedHashes;
  /** The paths that changed, with their new hashes. */
  changed(files: Record<string, string | null>): void;
  /** Keeps a throw of a timer's callback from the event loop (the effect's `guarded`). */
  guard: Guard;
}

export interface ChangedFiles {
  /** The paths of one notice are looked at: at once when it is the first of this turn, else with the rest of the turn's at its end. */
  look(relatives: Iterable<string>): void;
  /** The paths of one event are looked at now, and each again `settleMs` later. */
  seen(relatives: readonly string[]): void;
  close(): void;
}

// Each path, and the same file seen through a link to its directory, inside the workspace.
function addWithAliases(due: Set<string>, relatives: Iterable<string>, aliases: (relative: string) => string[]) {
  for (const relative of relatives) {
    due.add(relative);
    for (const alias of aliases(relative.replace(/\/$/, '') || '.')) due.add(relative.endsWith('/') ? `${alias}/` : alias);
  }
}

export function createChangedFiles(options: ChangedFilesOptions): ChangedFiles {
  const { hashes, scheduler, guard } = options;
  const due = new Set<string>();
  const later = new Map<string, Subscription>();
  /** Files seen empty once, waiting for the rest of their save. */
  const truncated = new Set<string>();
  let flushing: NodeJS.Immediate | null = null;
  /** Set once a look was made at once in this turn, until the turn's end. */
  let lookedThisTurn: NodeJS.Immediate | null = null;

  /** The new hash of `relative`, or undefined when it is no change (yet). */
  function changeOf(relative: string, recorded: RecordedHashes): string | null | undefined {
    const known = recorded.get(relative);
    // Unknown, or known only as unverified: what reads it is being built again anyway.
    if (!known || (known.size === 1 && known.has(UNVERIFIED))) return undefined;
    const hash = hashes.hash(relative);
    if (known.size === 1 && known.has(hash)) return void truncated.delete(relative);
    // A save truncates the file, then writes it: a file seen empty that was not is looked
    // at again a little later, so no build (and no push of an empty stylesheet) starts from
    // half a save. A request meanwhile still gets what is on disk (the check before answering).
    if (hash === EMPTY_FILE && !known.has(EMPTY_FILE) && !truncated.has(relative)) {
      truncated.add(relative);
      scheduler.schedule(guard(() => look([relative])), options.truncationMs);
      return undefined;
    }
    truncated.delete(relative);
    return hash;
  }

  // Only what the state depends on, and only when it differs from what the state recorded:
  // a save that restores the content, or a second look at an unchanged file, changes nothing.
  const flush = guard(() => {
    flushing = null;
    const recorded = options.recorded(due);
    // Kept in the event log, keyed by paths (ARCHITECTURE.md "One module's requests at 10,000 modules").
    const files = pathRecord<string | null>();
    for (const relative of due) {
      const hash = changeOf(relative, recorded);
      if (hash !== undefined) files[relative] = hash;
    }
    due.clear();
    if (Object.keys(files).length > 0) options.changed(files);
  });

  function look(relatives: Iterable<string>) {
    addWithAliases(due, relatives, options.aliases);
    if (flushing) return;
    // The first notice of a turn (a save) is looked at as it comes: waiting for the end of the
    // turn cost each stylesheet push a trip of the event loop (ARCHITECTURE.md "One stylesheet
    // edit"). The others of the same turn (a checkout's) are read together once it ends.
    if (lookedThisTurn) {
      flushing = setImmediate(flush);
      return;
    }
    lookedThisTurn = setImmediate(() => (lookedThisTurn = null));
    flush();
  }

  function seen(relatives: readonly string[]) {
    look(relatives);
    for (const relative of relatives) {
      later.get(relative)?.unsubscribe();
      const again = guard(() => {
        later.delete(relative);
        look([relative]);
      });
      later.set(relative, scheduler.schedule(again, options.settleMs));
    }
  }

  return {
    look,
    seen,
    close() {
      if (flushing) clearImmediate(flushing);
      if (lookedThisTurn) clearImmediate(lookedThisTurn);
      for (const timer of later.values()) timer.unsubscribe();
    },
  };
}
