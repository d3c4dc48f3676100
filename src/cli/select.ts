// `core select <package>...` / `core select --all`: the development selection (README "The command line"),
// the only writer of `.core/`.
import fs from 'node:fs';
import path from 'node:path';
import { parseCommandLine } from './command-line.js';
import { createFileHashes } from '../io/file-hashes.js';
import { readWorkspace, SELECTION_FILE } from '../workspace/read-workspace.js';
import { UsageError } from './usage-error.js';
import { workspaceDir } from './workspace-dir.js';
import { describeFileError } from './file-error.js';

export const SELECT_HELP = `Usage: core select <package>...
       core select --all

Chooses the workspace packages served in development. Packages left out are mapped to
CORE_CDN_ORIGIN in the preview's import map, at the version in their package.json.
The choice is kept in .core/selection.json (do not edit or commit it); a running service
picks it up before its next answer.

Options:
  --all        every package in development again (removes the selection, or what stands
               in its place: a link, a FIFO, an empty directory; default: off)
`;

export async function selectCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine({ args, options: { all: { type: 'boolean' } }, allowPositionals: true, strict: true });
  const root = workspaceDir();
  const file = path.join(root, SELECTION_FILE);
  if (values.all) {
    if (positionals.length > 0) throw new UsageError('--all takes no package names');
    if (!cleared(file)) return 1;
    process.stdout.write('every workspace package is in development\n');
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('name the packages to select, or pass --all');
  const workspacePackages = readWorkspace(createFileHashes(root)).packages;
  const known = workspacePackages.map((p) => p.name);
  const unknown = positionals.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    // A package's directory typed for its name (`core select packages/app`): the name to type.
    const byDir = new Map(workspacePackages.map((p) => [path.posix.normalize(p.dir), p.name]));
    const dirsOf = unknown.flatMap((typed) => {
      const name = byDir.get(path.relative(root, path.resolve(root, typed)).split(path.sep).join('/'));
      return name === undefined ? [] : [`"${typed}" is the directory of ${name}`];
    });
    const hint = dirsOf.length === 0 ? '' : ` (${dirsOf.join(', ')}: a selection names packages)`;
    throw new UsageError(`${unknown.map((n) => `"${n}"`).join(', ')} ${unknown.length === 1 ? 'is not a package' : 'are not packages'} of the workspace; its packages are ${known.join(', ') || '(none)'}${hint}`);
  }
  const packages = [...new Set(positionals)];
  // A file or a link at the place is replaced by the rename, never removed first: a running
  // service never reads no selection in between. A directory is not: an empty one goes first.
  if (!cleared(file, 'directory') || !written(file, `${JSON.stringify({ packages }, null, 2)}\n`)) return 1;
  const rest = known.filter((name) => !packages.includes(name));
  process.stdout.write(`in development: ${packages.join(', ')}\n${rest.length ? `from the CDN: ${rest.join(', ')}\n` : ''}`);
  return 0;
}

/**
 * Removes what stands at the selection's place, where the service reads no selection (README
 * "Files that are not files"): the file, a symbolic link (not where it leads), a FIFO, or an empty
 * directory, so that `--all` or a new choice takes effect (`only`: a directory, which a rename
 * cannot replace). A directory holding files is not the command's to remove: told, and false, as
 * for a file it cannot remove.
 */
function cleared(file: string, only?: 'directory'): boolean {
  let isDirectory: boolean;
  try {
    isDirectory = fs.lstatSync(file).isDirectory();
  } catch (error) {
    // Absent, or `.core` is no directory: there is no selection to remove.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return true;
    return told(`cannot read ${SELECTION_FILE}: ${describeFileError(error)}`);
  }
  if (!isDirectory && only === 'directory') return true;
  try {
    if (isDirectory) fs.rmdirSync(file);
    else fs.unlinkSync(file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (isDirectory && (code === 'ENOTEMPTY' || code === 'EEXIST')) {
      return told(`${SELECTION_FILE} is a directory holding files, not a selection (every package stays in development while it is there); remove it, then run the command again`);
    }
    return told(`cannot remove ${SELECTION_FILE}: ${describeFileError(error)}`);
  }
}

// Written whole, then renamed: a running service never reads half a selection.
function written(file: string, text: string): boolean {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem = code === 'EEXIST' || code === 'ENOTDIR' ? `${path.dirname(SELECTION_FILE)} is not a directory; remove it, then run the command again` : describeFileError(error);
    return told(`cannot write ${SELECTION_FILE}: ${problem}`);
  }
  try {
    fs.writeFileSync(temporary, text);
    fs.renameSync(temporary, file);
    return true;
  } catch (error) {
    try {
      fs.rmSync(temporary, { force: true });
    } catch {
      // Never made.
    }
    return told(`cannot write ${SELECTION_FILE}: ${describeFileError(error)}`);
  }
}

const told = (problem: string): false => {
  process.stderr.write(`core select: ${problem}\n`);
  return false;
};
