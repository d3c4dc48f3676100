// A dynamic import or require by a template or a concatenation (`import(`./locales/${lang}.ts`)`,
// `import('./data/' + name + '.json')`): esbuild bundles every file its pattern can match (a
// variable part may hold `/`), from the directories it lists, and its metafile names the pattern
// (`./locales/**/*.ts`), not the listings. A file made there later was in no answer, and the page
// threw "Module not found in bundle" while `/state` said valid (README "Bundling real code"). The
// listing of the pattern's first directory and of each directory below it is an input of the build.
import fs from 'node:fs';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { isInside } from '../workspace/paths.js';

/** Directories listed for one build at most: a pattern rooted high in a large tree stops there. */
const MAX_DIRECTORIES = 1_000;

/** The directory listings (`dir/`, workspace-relative) the patterns of the files `read` depend on. */
export function patternListings(root: string, inputs: esbuild.Metafile['inputs'], read: Iterable<string>, inputPath: (input: string) => string | null): string[] {
  const listings = new Set<string>();
  for (const input of new Set(read)) {
    const importer = inputPath(input);
    if (importer === null) continue;
    for (const record of inputs[input]?.imports ?? []) {
      if (!record.external || !record.path.includes('*') || !/^\.\.?\//.test(record.path)) continue;
      const segments = record.path.split('/');
      const fixed = segments.slice(0, segments.findIndex((segment) => segment.includes('*')));
      const base = path.posix.normalize(path.posix.join(path.posix.dirname(importer), ...fixed));
      if (base !== '.' && isInside(base)) addTree(root, base, listings);
    }
  }
  return [...listings];
}

// The directory and those below it, as esbuild's pattern reaches them: links are not followed
// (nothing outside the workspace is listed), `node_modules` and dot-directories are skipped.
function addTree(root: string, base: string, listings: Set<string>): void {
  const pending = [base];
  while (pending.length > 0 && listings.size < MAX_DIRECTORIES) {
    const dir = pending.pop()!;
    if (listings.has(`${dir}/`)) continue;
    listings.add(`${dir}/`);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
    } catch {
      continue; // gone or unreadable: its listing, an input, says so
    }
    for (const entry of entries) if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) pending.push(`${dir}/${entry.name}`);
  }
}
