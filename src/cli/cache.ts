// `core cache`: where the build cache of the workspace is and how large (README "The build
// cache"); `--clear` removes it, so that the next start builds every module.
import { parseCommandLine } from './command-line.js';
import { cacheLocation, clearCacheDirectory, damagedCacheFiles, listCacheDirectory } from '../io/build-cache.js';
import { createRemoteClient } from '../io/remote-cache/client.js';
import { remoteCacheSettings } from '../io/remote-cache/settings.js';
import { pushBuilds, writeSettings } from './cache-push.js';
import { formatBytes } from './format-bytes.js';
import { UsageError } from './usage-error.js';
import { workspaceDir } from './workspace-dir.js';

export const CACHE_HELP = `Usage: core cache [--clear]
       core cache push

Prints where the build cache of the workspace in the current directory is, and its size.
core run keeps there what each module's build produced and the content hashes of what it
read, so that a restart builds only the modules whose sources changed. With a team's remote
cache configured (core.json "remoteCache", or CORE_REMOTE_CACHE), prints its address and
whether it answers.

push      build every module's development and production variants and upload them to the
          team's remote cache: for CI on a protected branch only (what it writes, everyone
          reads)

Options:
  --clear   remove the cache: the next core run builds every module

Environment:
  CORE_CACHE_DIR   the cache's directory (default: node_modules/.cache/core-js-packages in the
                   workspace when it has node_modules, else $XDG_CACHE_HOME/core-js-packages/<id>,
                   ~/.cache by default)
  CORE_REMOTE_CACHE               the team's remote cache, over core.json's remoteCache.url
  CORE_REMOTE_CACHE_HEADER        a header sent to it, "Name: value" (a credential)
  CORE_REMOTE_CACHE_SIGNING_KEY   push: the Ed25519 private key entries are signed with
                                  (PEM, or base64 of its PKCS8 DER)
`;

export async function cacheCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine({ args, options: { clear: { type: 'boolean' } }, allowPositionals: true, strict: true });
  if (positionals.length > 1 || (positionals.length === 1 && positionals[0] !== 'push')) throw new UsageError(`unexpected argument "${positionals[positionals[0] === 'push' ? 1 : 0]}"`);
  const root = workspaceDir();
  if (positionals[0] === 'push') return push(root);
  const dir = cacheLocation(root);
  // `CORE_CACHE_DIR` may name any folder: only the cache's own files are counted and removed,
  // anything else there is named and left (README "The build cache", "Clearing").
  if (values.clear) return clear(dir);
  const found = listCacheDirectory(dir);
  if ('notDirectory' in found) return notADirectory(dir, found.notDirectory);
  const own = 'own' in found ? found.own.filter(({ folder }) => !folder) : [];
  const bytes = own.reduce((sum, { size }) => sum + size, 0);
  // What a start would find damaged by what it is (a FIFO where the index was) is named, never
  // counted as nothing: the start says it in one line and writes the cache anew (README "The build cache").
  const damaged = 'own' in found ? damagedCacheFiles(dir) : [];
  process.stdout.write(own.length === 0 && damaged.length === 0 ? `${dir} (empty)\n` : `${dir}  ${own.length} file${own.length === 1 ? '' : 's'}, ${formatBytes(bytes)}\n`);
  for (const { file, kind } of damaged) {
    // A directory cannot be renamed over: the index is not written while one is there.
    const remedy = kind === 'a directory' ? 'core run builds every module until it is removed' : 'core run builds again what it held and writes the cache anew';
    process.stdout.write(`damaged: ${file} is ${kind}, not a regular file; ${remedy}\n`);
  }
  if ('foreign' in found && found.foreign.length > 0) process.stdout.write(`${notTheCaches(found.foreign)}; --clear leaves them\n`);
  const remote = await describeRemote(root);
  if (remote) process.stdout.write(`${remote}\n`);
  return 0;
}

// The remote's settings, and whether it answers: one HEAD of a name nobody stores (404 is an answer).
async function describeRemote(root: string): Promise<string | null> {
  const { settings, problem } = remoteCacheSettings(root);
  if (problem) return `team cache: not used (${problem})`;
  if (!settings) return null;
  const client = createRemoteClient(settings);
  const answer = await client.head('ac', '0'.repeat(64));
  client.close();
  const state = 'failed' in answer ? `does not answer (${answer.failed})` : 'answers';
  const trust = settings.publicKey ? 'entries must be signed' : 'entries are not signed';
  return `team cache: ${settings.base.href} ${state}; ${trust}${settings.header ? `; sends ${settings.header[0]}` : ''}`;
}

async function push(root: string): Promise<number> {
  const { settings, key } = writeSettings(remoteCacheSettings(root));
  const result = await pushBuilds(root, settings, key, (line) => void process.stderr.write(`${line}\n`));
  const told = `${result.entries} of ${result.built} builds uploaded to ${settings.base.href} (${result.blobs} blobs, ${formatBytes(result.bytes)})${result.skipped > 0 ? `; ${result.skipped} not built, not uploaded` : ''}`;
  if (result.stopped === 'denied') {
    process.stderr.write(`core cache push: the team cache refused a write (401 or 403): this address or credential is read-only; nothing more was uploaded\n`);
    return 1;
  }
  if (result.stopped) {
    process.stderr.write(`core cache push: the upload stopped (${result.stopped}); ${told}\n`);
    return 1;
  }
  process.stdout.write(`${told}\n`);
  return 0;
}

function clear(dir: string): number {
  const cleared = clearCacheDirectory(dir);
  if ('notDirectory' in cleared) return notADirectory(dir, cleared.notDirectory);
  if ('missing' in cleared) {
    process.stdout.write(`${dir} does not exist: nothing to remove\n`);
    return 0;
  }
  if (cleared.dirRemoved) process.stdout.write(`removed ${dir}\n`);
  else process.stdout.write(`removed ${cleared.removed} file${cleared.removed === 1 ? '' : 's'} of the build cache (${formatBytes(cleared.bytes)}) from ${dir}\n${notTheCaches(cleared.left)}: left there\n`);
  return 0;
}

function notADirectory(dir: string, kind: string): number {
  process.stderr.write(`core cache: the build cache's place ${dir} (CORE_CACHE_DIR) is ${kind}, not a directory: nothing there is the cache's, nothing is removed, and core run keeps no build cache until it names a directory\n`);
  return 1;
}

const MAX_NAMED = 3;

function notTheCaches(names: readonly string[]): string {
  const named = names.slice(0, MAX_NAMED).join(', ') + (names.length > MAX_NAMED ? `, and ${names.length - MAX_NAMED} more` : '');
  return `${names.length} entr${names.length === 1 ? 'y is' : 'ies are'} not the build cache's (${named})`;
}
