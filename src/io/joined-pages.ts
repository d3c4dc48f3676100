// The bundled preview's joined pages, kept beside the build cache (README "The build cache"):
// a restart whose builds come from the cache answers the page without joining it again. A page
// is named by its plan's key, a hash of everything it joins (README "The bundled preview"),
// together with what joins it (the versions of the service and esbuild, the bundlers' code): the
// same name is the same bytes. A file starts with one line of JSON, the name of the page it holds
// and the lengths and hashes of its files (the script, then each part of the joined sheet), then their bytes; one that does not hash to what it says,
// or holds another page than its name's (a file copied or renamed over it), is a miss, as is any failure.
import fs from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../regular-files.js';
import { contentHash } from '../outputs/content-hash.js';
import { removeAbandonedTemporaries, TEMPORARY_SUFFIX, writeAtomically } from './build-cache/write-atomically.js';

export interface JoinedPage {
  code: Buffer;
  /** Each part of the joined sheet (README "The bundled preview"). */
  styles: Buffer[];
}

export interface JoinedPages {
  /** The page saved under `key`, or null. */
  read(key: string): JoinedPage | null;
  /** Saves it, off the request's path; keeps the last few pages, removes older ones. */
  write(key: string, page: JoinedPage): Promise<void>;
  /** Whether any page is saved: an earlier run served a bundled page. */
  any(): boolean;
}

interface Header {
  /** The page's name, which its file's name must be: its bytes hash alone cannot say which page they are. */
  page: string;
  code: { bytes: number; hash: string };
  styles: { bytes: number; hash: string }[];
}

/** Pages kept: those of the bundles the service keeps in memory (an open page, a reload after an edit, another entry). */
const KEPT_PAGES = 4;

const PAGE_FILE = /^[A-Za-z0-9_-]{22}\.page$/;
const isTemporaryFile = (name: string) => TEMPORARY_SUFFIX.test(name) && PAGE_FILE.test(name.replace(TEMPORARY_SUFFIX, ''));
/** A name of the pages' folder a service writes: a page, or one being written (README "The build cache", "Clearing"). */
export const isOwnPagesName = (name: string): boolean => PAGE_FILE.test(name) || isTemporaryFile(name);

/** `now`: the clock a temporary file's age is judged by. */
export function createJoinedPages(dir: string, identity: string, now: () => number = Date.now): JoinedPages {
  const nameOf = (key: string) => contentHash(`${identity}\0${key}`);
  const fileOf = (key: string) => path.join(dir, `${nameOf(key)}.page`);
  return {
    any() {
      try {
        return fs.readdirSync(dir).some((name) => PAGE_FILE.test(name));
      } catch {
        return false;
      }
    },
    read(key) {
      let content: Buffer;
      try {
        content = readRegularFile(fileOf(key)).bytes; // Never waits on a FIFO (README "Files that are not files").
      } catch {
        return null;
      }
      return parsePage(content, nameOf(key));
    },
    async write(key, page) {
      const header: Header = { page: nameOf(key), code: { bytes: page.code.byteLength, hash: contentHash(page.code) }, styles: page.styles.map((part) => ({ bytes: part.byteLength, hash: contentHash(part) })) };
      try {
        await fs.promises.mkdir(dir, { recursive: true });
        // Renamed into place, as every file of the cache: a service sharing it never reads half a page.
        await writeAtomically(fileOf(key), Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), page.code, ...page.styles]));
        await removeOlderPages(dir);
        await removeAbandonedTemporaries(dir, isTemporaryFile, now);
      } catch {
        // A cache that cannot be written costs the next restart a join, nothing else.
      }
    },
  };
}

function parsePage(content: Buffer, name: string): JoinedPage | null {
  const end = content.indexOf(0x0a);
  if (end === -1) return null;
  let header: Header;
  try {
    header = JSON.parse(content.subarray(0, end).toString('utf8')) as Header;
  } catch {
    return null;
  }
  if (header?.page !== name || !Array.isArray(header.styles)) return null;
  const files = [header.code, ...header.styles];
  const sizes = files.map((file) => file?.bytes);
  if (!sizes.every((bytes) => Number.isSafeInteger(bytes) && bytes >= 0)) return null;
  if (end + 1 + sizes.reduce((sum, bytes) => sum + bytes, 0) !== content.byteLength) return null;
  let at = end + 1;
  const parts: Buffer[] = [];
  for (const [index, file] of files.entries()) {
    const part = content.subarray(at, at + sizes[index]!);
    at += sizes[index]!;
    if (contentHash(part) !== file.hash) return null;
    parts.push(Buffer.from(part));
  }
  return { code: parts[0]!, styles: parts.slice(1) };
}

// The newest KEPT_PAGES pages stay, by their last write.
async function removeOlderPages(dir: string): Promise<void> {
  const names = (await fs.promises.readdir(dir)).filter((name) => PAGE_FILE.test(name));
  const pages = await Promise.all(names.map(async (name) => ({ name, mtimeMs: (await fs.promises.stat(path.join(dir, name)).catch(() => null))?.mtimeMs ?? 0 })));
  pages.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { name } of pages.slice(KEPT_PAGES)) await fs.promises.rm(path.join(dir, name), { force: true });
}
