// Workspaces with @core-js/packages installed, as `npm install` leaves them: the bundlers
// (`@core-js/packages/bundlers/ts`, ...) then resolve from the workspace itself, the way
// they do for a user, rather than through the service's fallback to its own package.
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_DIR, tempWorkspace } from '../helpers/workspace.js';

/** Links node_modules/@core-js/packages of `root` to this project. */
export function installCore(root: string): string {
  const link = path.join(root, 'node_modules/@core-js/packages');
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(PROJECT_DIR, link, 'dir');
  return root;
}

/** A temporary copy of `from` (or the files given), with @core-js/packages installed. */
export const installedWorkspace = (files: Record<string, string> = {}, from?: string): string => installCore(tempWorkspace(files, from));
