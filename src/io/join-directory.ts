// The bundled preview's join directory (README "The bundled preview"): the files a join reads
// (`JoinFiles`, src/bundlers/join-files.ts), each written once per content, retained while a kept
// bundle reads them, removed with the service; the directories a killed service left are swept.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PageBundleError, pathOf, type JoinFiles } from '../bundlers/join-files.js';

// In memory when the system has a memory file system with room (Linux's /dev/shm): on this
// project's test machines a thousand small files took 11-18 ms there and 0.5-0.9 s in the
// disk's temporary directory at busy times. Named after the process, in a directory of the user's
// own: the first join of a service removes what a process that is gone left there (killed before
// it removed its own), and the directories named after such a process in the base itself, as
// services made them before they had a directory of the user's own (and still do when that name
// is not the user's alone): one listing of the base per service.
const MEMORY_DIRECTORY = '/dev/shm';
const MEMORY_NEEDED = 64 * 1024 * 1024;

const JOIN_DIRECTORY = 'core-join-';
const userId = (): number | undefined => process.getuid?.();

export interface JoinFilesOptions {
  /** Where the join directory may go, first choice first (tests); by default /dev/shm when it has room, then the temporary directory. */
  bases?: readonly string[];
}

function makeJoinDirectory(bases: readonly string[]): string {
  for (const base of bases) {
    const own = ownDirectory(base, false);
    if (own) removeLeftovers(own);
    removeLeftoversBeside(base);
  }
  const own = ownDirectory(bases[0]!, true);
  // Without one of our own (another user's, or a link, under that name), one in the base itself, as unique.
  return fs.mkdtempSync(own ? path.join(own, `${process.pid}-`) : path.join(bases[0]!, `${JOIN_DIRECTORY}${process.pid}-`));
}

// `core-join-<uid>` in `base`, made when asked: used only when it is a directory (not a link)
// of this user that no one else may write to, as a shared temporary directory holds anyone's names.
function ownDirectory(base: string, make: boolean): string | null {
  const uid = userId();
  const dir = path.join(base, `${JOIN_DIRECTORY}${uid ?? os.userInfo().username}`);
  try {
    if (make) fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return null;
  }
  try {
    const stat = fs.lstatSync(dir);
    return stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o022) === 0 ? dir : null;
  } catch {
    return null;
  }
}

function removeLeftovers(own: string): void {
  for (const name of fs.readdirSync(own)) {
    if (isLeftover(Number(name.split('-')[0]))) fs.rmSync(path.join(own, name), { recursive: true, force: true });
  }
}

// `core-join-<pid>-` and the six characters mkdtemp adds: never the user's own `core-join-<uid>`.
const PROCESS_DIRECTORY = new RegExp(`^${JOIN_DIRECTORY}(\\d+)-[^/]{6}$`);

// The same rule as in the user's own directory, where anyone may have made the name: only a
// directory (a link is not followed, nor removed) of this user, of a process no longer running.
function removeLeftoversBeside(base: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(base);
  } catch {
    return;
  }
  const uid = userId();
  for (const name of names) {
    if (!isLeftover(Number(PROCESS_DIRECTORY.exec(name)?.[1]))) continue;
    const dir = path.join(base, name);
    try {
      const stat = fs.lstatSync(dir);
      if (stat.isDirectory() && (uid === undefined || stat.uid === uid)) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
}

const defaultBases = (): string[] => [...(hasRoom(MEMORY_DIRECTORY) ? [MEMORY_DIRECTORY] : []), os.tmpdir()];

function hasRoom(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    const space = fs.statfsSync(dir);
    return space.bavail * space.bsize >= MEMORY_NEEDED;
  } catch {
    return false;
  }
}

/** Named after a process that is gone: not this one, nor one still running (NaN: not a process's name). */
const isLeftover = (pid: number): boolean => pid > 0 && pid !== process.pid && !isRunning(pid);

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // another user's
  }
}

export function createJoinFiles(options: JoinFilesOptions = {}): JoinFiles {
  let dir: string | null = null;
  const written = new Set<string>();
  const made = new Set<string>();
  const files: JoinFiles = {
    dir: () => (dir ??= makeJoinDirectory(options.bases ?? defaultBases())),
    fileOf(address, hash, extension) {
      // An address is a path of the service's own; one that could climb out is named by its hash alone.
      const at = pathOf(address);
      const safe = at.startsWith('/') && !at.split('/').some((segment) => segment === '..' || segment === '.') ? at : '/outputs';
      return `${files.dir()}${safe}.${hash}.${extension}`;
    },
    async write(entries) {
      // Synchronous: a thousand small files take 11-30 ms so, and several times that through the
      // thread pool (three calls each) while the first builds' cache write shares it.
      const contents = await Promise.all(entries.map(({ file, content }) => (written.has(file) ? null : content())));
      entries.forEach(({ file }, index) => {
        const content = contents[index];
        if (content === null || content === undefined || written.has(file)) return;
        const parent = path.dirname(file);
        try {
          if (!made.has(parent)) {
            fs.mkdirSync(parent, { recursive: true });
            made.add(parent);
          }
          fs.writeFileSync(file, content);
        } catch (error) {
          // A full or vanished directory: the page request says so (BUILD_FAILED); the next one writes again.
          throw new PageBundleError(`${file} could not be written for the join: ${(error as Error).message}`);
        }
        written.add(file);
      });
    },
    retain(keep) {
      for (const file of written) {
        if (keep.has(file)) continue;
        written.delete(file);
        fs.rmSync(file, { force: true });
      }
    },
    forget() {
      written.clear();
      made.clear();
    },
    remove() {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
      dir = null;
      files.forget();
    },
  };
  return files;
}
