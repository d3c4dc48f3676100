// Editing a workspace on disk the way an editor does: whole-file writes.
import fs from 'node:fs';
import path from 'node:path';

export const readText = (root: string, relative: string): string => fs.readFileSync(path.join(root, relative), 'utf8');

export function write(root: string, relative: string, text: string): void {
  const file = path.join(root, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

export function remove(root: string, relative: string): void {
  fs.rmSync(path.join(root, relative), { recursive: true, force: true });
}

/** Rewrites a file through `change`; returns the text it had, to restore it. */
export function edit(root: string, relative: string, change: (text: string) => string): string {
  const before = readText(root, relative);
  const after = change(before);
  if (after === before) throw new Error(`the edit of ${relative} changes nothing`);
  write(root, relative, after);
  return before;
}

/** Rewrites a JSON manifest through `change` (2-space indentation). */
export function editJson(root: string, relative: string, change: (json: any) => void): string {
  return edit(root, relative, (text) => {
    const json = JSON.parse(text);
    change(json);
    return `${JSON.stringify(json, null, 2)}\n`;
  });
}
