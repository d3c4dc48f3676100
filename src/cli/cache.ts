// `core cache`: where the build cache of the workspace is and how large (README "The build
// cache"); `--clear` removes it, so that the next start builds every module.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cacheLocation } from '../streams/build-cache.js';
import { formatBytes } from './format-bytes.js';
import { UsageError } from './usage-error.js';
import { workspaceDir } from './workspace-dir.js';

export const CACHE_HELP = `Usage: core cache [--clear]

Prints where the build cache of the workspace in the current directory is, and its size.
core run keeps there what each module's build produced and the content hashes of what it
read, so that a restart builds only the modules whose sources changed.

Options:
  --clear   remove the cache: the next core run builds every module

Environment:
  CORE_CACHE_DIR   the cache's directory (default: node_modules/.cache/core-js-packages in the
                   workspace when it has node_modules, else $XDG_CACHE_HOME/core-js-packages/<id>,
                   ~/.cache by default)
`;

export async function cacheCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { clear: { type: 'boolean' } }, allowPositionals: true, strict: true });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const dir = cacheLocation(workspaceDir());
  if (values.clear) {
    fs.rmSync(dir, { recursive: true, force: true });
    process.stdout.write(`removed ${dir}\n`);
    return 0;
  }
  const { files, bytes } = measure(dir);
  process.stdout.write(files === 0 ? `${dir} (empty)\n` : `${dir}  ${files} file${files === 1 ? '' : 's'}, ${formatBytes(bytes)}\n`);
  return 0;
}

function measure(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true, recursive: true }) as fs.Dirent[];
  } catch {
    return { files, bytes }; // none yet
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    files += 1;
    bytes += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return { files, bytes };
}
