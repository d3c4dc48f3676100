// A notice of one of the tree watcher's watches. A save of a file reads nothing here: its
// directory's watch names it, and that notice is passed on as it comes (`raw`). Only an entry
// made, removed or renamed (`rename`) is looked at, alone, with one stat.
import path from 'node:path';
import type { DirectoryWatches } from './directory-watches.js';
import type { LinkCensus } from './link-census.js';
import { entryIdentity } from './file-hashes.js';
import type { NoticeLedger } from './notice-proof.js';
import { statEntry, type Admission } from './tree-admission.js';
import type { TreeWalk } from './tree-walk.js';
import type { TreeWatcherFs } from './tree-watcher-fs.js';
import type { UnwatchedPaths } from './unwatched-paths.js';

export interface NoticeOptions {
  files: TreeWatcherFs;
  watches: DirectoryWatches;
  unwatched: UnwatchedPaths;
  ledger: NoticeLedger;
  census: LinkCensus;
  walk: TreeWalk;
  admission: Admission;
  /** Tells the watcher's listeners: `raw` for every notice, `all` for a path added, changed or removed. */
  raw(event: string, name: string, watchedPath: string): void;
  all(event: 'change' | 'unlink' | 'unlinkDir', absolute: string): void;
}

/** The handler of every notice of the watches (`notice` of DirectoryWatchOptions). */
export function createNoticeHandler(options: NoticeOptions): (watchedPath: string, directory: boolean, event: string, name: string) => void {
  const { files, watches, unwatched, ledger, census, walk, admission } = options;

  /** `ended`: the entry's own watch reported it moved or removed, so it is watched again whatever its identity now. */
  function entryNotice(absolute: string, ended: boolean) {
    const link = statEntry(files, unwatched, absolute, true);
    if (!link && unwatched.has(absolute)) return; // unreadable: listed, and looked at again on a notice naming it or a directory above
    ledger.noteLink(absolute, link?.isSymbolicLink() === true);
    // Judged in this very notice, before anything it makes (a build) starts: a link made before
    // the save that starts a build is noticed first (README "Links and large trees"). No
    // directory here any more: the links counted below it went with it.
    if (!link?.isDirectory()) census.gone(absolute);
    census.note(absolute, link?.isSymbolicLink() === true);
    // A hard link made here to a file named elsewhere: a write through this name is noticed in
    // this directory only, never in the other name's, which no earlier confirmation may vouch for.
    if (link?.isFile() && link.nlink > 1) ledger.distrustAll();
    const known = watches.get(absolute);
    if (!known) return admission.admit(absolute, walk.ready);
    const stats = statEntry(files, unwatched, absolute);
    if (!ended && stats && entryIdentity(stats) === known.id) return;
    // Removed, or made again (another entry under the same name): the old watch is of a gone entry.
    watches.unwatch(absolute);
    options.all(known.directory ? 'unlinkDir' : 'unlink', absolute);
    if (stats) admission.admit(absolute, walk.ready);
  }

  return (watchedPath, directory, event, name) => {
    // The watched directory itself removed or moved: libuv names it by its base name.
    const itself = directory && name === path.basename(watchedPath);
    ledger.noticed(watchedPath, directory, event, name, itself);
    options.raw(event, name, watchedPath);
    admission.retryUnwatched(name === '' || itself || !directory ? watchedPath : path.join(watchedPath, name));
    // A linked file's own watch: a save is a change; a removal or a replacement (an editor's
    // save by rename) ends the watch of that file, and the path is decided again.
    if (!directory) return event === 'rename' ? entryNotice(watchedPath, true) : options.all('change', watchedPath);
    // Only an entry made, removed or renamed changes what is watched: every platform reports
    // those as 'rename', and a save of a file's content as 'change'.
    if (event !== 'rename' || name === '') return;
    // Its watch has ended, even when a directory made again at once got the same inode number.
    if (itself) entryNotice(watchedPath, true);
    entryNotice(path.join(watchedPath, name), false);
  };
}
