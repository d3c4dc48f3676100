// A SourceReader over files declared as a map (workspace-relative path to text), so the
// workspace model can be derived without a disk. Directories are the ancestors of the paths.
import { contentHash } from '../../src/outputs/content-hash.js';
import type { SourceReader } from '../../src/workspace/read-workspace.js';

export interface MemoryReader extends SourceReader {
  /** Every path asked for, in order: files as given, directories as listed. */
  readonly asked: string[];
}

export function memoryReader(files: Record<string, string>): MemoryReader {
  const children = new Map<string, Map<string, boolean>>([['.', new Map()]]);
  for (const file of Object.keys(files)) {
    const parts = file.split('/');
    for (let depth = 0; depth < parts.length; depth += 1) {
      const parent = depth === 0 ? '.' : parts.slice(0, depth).join('/');
      const own = parts.slice(0, depth + 1).join('/');
      const directory = depth < parts.length - 1;
      if (!children.has(parent)) children.set(parent, new Map());
      children.get(parent)!.set(parts[depth]!, directory);
      if (directory && !children.has(own)) children.set(own, new Map());
    }
  }
  const asked: string[] = [];
  return {
    asked,
    readText(path) {
      asked.push(path);
      const text = files[path];
      return text === undefined ? null : { text, hash: contentHash(text) };
    },
    listDir(path) {
      asked.push(`${path}/`);
      const entries = children.get(path);
      if (!entries) return null;
      const list = [...entries].map(([name, directory]) => ({ name, directory })).sort((a, b) => (a.name < b.name ? -1 : 1));
      return { entries: list, hash: contentHash(list.map(({ name, directory }) => `${name}${directory ? '/' : ''}`).join('\n')) };
    },
  };
}

/** The hash `memoryReader` gives a file's text. */
export const hashOf = (text: string): string => contentHash(text);
