// `core select <package>...` / `core select --all`: the development selection (README "The command line"),
// the only writer of `.core/`.
import fs from 'node:fs';
import path from 'node:path';
import { parseCommandLine } from './command-line.js';
import { createFileHashes } from '../io/file-hashes.js';
import { readWorkspace, SELECTION_FILE } from '../workspace/read-workspace.js';
import { UsageError } from './usage-error.js';
import { workspaceDir } from './workspace-dir.js';

export const SELECT_HELP = `Usage: core select <package>...
       core select --all

Chooses the workspace packages served in development. Packages left out are mapped to
CORE_CDN_ORIGIN in the preview's import map, at the version in their package.json.
The choice is kept in .core/selection.json (do not edit or commit it); a running service
picks it up before its next answer.

Options:
  --all        every package in development again (removes the selection; default: off)
`;

export async function selectCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine({ args, options: { all: { type: 'boolean' } }, allowPositionals: true, strict: true });
  const root = workspaceDir();
  const file = path.join(root, SELECTION_FILE);
  if (values.all) {
    if (positionals.length > 0) throw new UsageError('--all takes no package names');
    fs.rmSync(file, { force: true });
    process.stdout.write('every workspace package is in development\n');
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('name the packages to select, or pass --all');
  const known = readWorkspace(createFileHashes(root)).packages.map((p) => p.name);
  const unknown = positionals.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new UsageError(`${unknown.map((n) => `"${n}"`).join(', ')} ${unknown.length === 1 ? 'is not a package' : 'are not packages'} of the workspace; its packages are ${known.join(', ') || '(none)'}`);
  }
  const packages = [...new Set(positionals)];
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Written whole, then renamed: a running service never reads half a selection.
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify({ packages }, null, 2)}\n`);
  fs.renameSync(temporary, file);
  const rest = known.filter((name) => !packages.includes(name));
  process.stdout.write(`in development: ${packages.join(', ')}\n${rest.length ? `from the CDN: ${rest.join(', ')}\n` : ''}`);
  return 0;
}
