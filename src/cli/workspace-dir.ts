// The workspace a command works on: the current directory, which must hold core.json.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from './usage-error.js';

export function workspaceDir(cwd = process.cwd()): string {
  const root = path.resolve(cwd);
  if (!fs.existsSync(path.join(root, 'core.json'))) {
    throw new UsageError(`${root} holds no core.json: run the command in a workspace directory, or create one with \`core init <dir>\``);
  }
  return root;
}
