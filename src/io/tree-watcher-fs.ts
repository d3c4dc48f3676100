import type fs from 'node:fs';

/** The file-system calls the tree watcher makes: the real ones, or counting ones in the tests. */
export interface TreeWatcherFs {
  readdirSync(dir: string, options: { withFileTypes: true }): fs.Dirent[];
  statSync(file: string, options: { throwIfNoEntry: false }): fs.Stats | undefined;
  lstatSync(file: string, options: { throwIfNoEntry: false }): fs.Stats | undefined;
  watch(file: string, options: { persistent: boolean }, listener: (event: string, name: string | Buffer | null) => void): fs.FSWatcher;
}
