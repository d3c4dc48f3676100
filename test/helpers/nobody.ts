// Permissions do not stop root, so tests of unreadable files run the service as `nobody`
// when they run as root. A clone under a directory private to root (a home directory of
// mode 700) cannot be reached by `nobody`: such a test is skipped, with the reason, rather
// than failed for the machine's layout.
import { spawnSync } from 'node:child_process';
import { CORE_BIN } from './cli.js';

export const NOBODY = { uid: 65534, gid: 65534 };

/** Null when `nobody` can read `file` (the command line), else why not. */
export function nobodyCannotRun(file = CORE_BIN): string | null {
  const probe = spawnSync(process.execPath, ['-e', 'require("node:fs").accessSync(process.argv[1], require("node:fs").constants.R_OK)', file], { ...NOBODY, encoding: 'utf8' });
  if (probe.status === 0) return null;
  return `the user nobody cannot read ${file} (${probe.error?.message ?? probe.stderr.split('\n').find((line) => line.includes('Error')) ?? `exit ${probe.status}`}): a parent directory is private; clone under a directory others can reach to run it`;
}
