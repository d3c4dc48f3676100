// The workspace a command works on: the current directory, which must hold core.json; by its
// real path, as the current directory itself is (README "Links and large trees").
import fs from 'node:fs';
import path from 'node:path';
import { realDirectory } from '../io/confined-paths.js';
import { UsageError } from './usage-error.js';

export function workspaceDir(cwd = process.cwd()): string {
  const root = path.resolve(cwd);
  if (!fs.existsSync(path.join(root, 'core.json'))) {
    throw new UsageError(`${root} holds no core.json: run the command in a workspace directory, or create one with \`core init <dir>\``);
  }
  return realDirectory(root);
}
