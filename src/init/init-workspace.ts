// `core init`: writes the template workspace into a directory that is empty or missing.
import fs from 'node:fs';
import path from 'node:path';
import { packageFile } from '../package-files.js';
import { VERSION } from '../version.js';
import { renderTemplate, workspaceName, type TemplateFile } from './render-template.js';

/** template/ of this package. */
export const TEMPLATE_DIR = packageFile('template');

// A fresh `git init` leaves `.git` behind; a directory holding only that is still empty here.
const IGNORED_ENTRIES = new Set(['.git']);

/** The path names a file, not a directory: nothing was written. */
export class NotADirectory extends Error {
  constructor(readonly dir: string) {
    super(`${dir} is a file, not a directory: name a new or empty directory for the workspace`);
    this.name = 'NotADirectory';
  }
}

/** The directory already holds files: nothing was written. */
export class DirectoryNotEmpty extends Error {
  constructor(readonly dir: string, readonly entries: string[]) {
    super(`${dir} is not empty (it holds ${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', ...' : ''}): name a new or empty directory, such as core init my-site`);
    this.name = 'DirectoryNotEmpty';
  }
}

export interface InitResult {
  dir: string;
  name: string;
  /** Relative to `dir`. */
  files: string[];
}

export function initWorkspace(target: string, templateDir = TEMPLATE_DIR): InitResult {
  const dir = path.resolve(target);
  if (fs.existsSync(dir)) {
    if (!fs.statSync(dir).isDirectory()) throw new NotADirectory(dir);
    const entries = fs.readdirSync(dir).filter((entry) => !IGNORED_ENTRIES.has(entry)).sort();
    if (entries.length > 0) throw new DirectoryNotEmpty(dir, entries);
  }
  const name = workspaceName(path.basename(dir));
  const files = renderTemplate(readTemplate(templateDir), { name, version: VERSION });
  for (const file of files) {
    const destination = path.join(dir, ...file.path.split('/'));
    fs.mkdirSync(path.dirname(destination), { recursive: true });
    // `wx`: a file that appeared meanwhile is never overwritten.
    fs.writeFileSync(destination, file.text, { flag: 'wx' });
  }
  return { dir, name, files: files.map((file) => file.path).sort() };
}

function readTemplate(templateDir: string): TemplateFile[] {
  const files: TemplateFile[] = [];
  const visit = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(templateDir, relative), { withFileTypes: true })) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) visit(child);
      else if (entry.isFile()) files.push({ path: child, text: fs.readFileSync(path.join(templateDir, child), 'utf8') });
    }
  };
  visit('');
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
