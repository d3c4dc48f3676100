// Temporary workspaces for tests: a copy of a fixture, or files declared inline.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES_DIR = path.join(PROJECT_DIR, 'fixtures');
/** Small workspaces written for the tests (basic, deep, errors): the tests need nothing outside the repository. */
export const TEST_FIXTURES_DIR = path.join(PROJECT_DIR, 'test/fixtures');

const created: string[] = [];

/** A fresh directory holding `files` (relative path to text), removed by `removeTemporaryDirs`. */
export function tempWorkspace(files: Record<string, string> = {}, from?: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'core-test-')));
  created.push(dir);
  if (from) fs.cpSync(from, dir, { recursive: true });
  for (const [relative, text] of Object.entries(files)) writeFile(dir, relative, text);
  return dir;
}

/** A copy of the example workspace in fixtures/. */
export const exampleWorkspace = (files: Record<string, string> = {}) => tempWorkspace(files, FIXTURES_DIR);

export function writeFile(dir: string, relative: string, text: string): void {
  const file = path.join(dir, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

export function removeTemporaryDirs(): void {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A small workspace declared inline: one package per entry of `packages`. */
export function inlineWorkspace(packages: Record<string, { manifest: Record<string, unknown>; files: Record<string, string> }>, extra: Record<string, string> = {}): string {
  const files: Record<string, string> = { 'core.json': JSON.stringify({ packages: Object.keys(packages) }), ...extra };
  for (const [dir, { manifest, files: own }] of Object.entries(packages)) {
    files[`${dir}/package.json`] = JSON.stringify(manifest, null, 2);
    for (const [relative, text] of Object.entries(own)) files[`${dir}/${relative}`] = text;
  }
  return tempWorkspace(files);
}
