// The dashboard's browser files, bundled at build time (scripts/build-dashboard.js) into
// dist/dashboard/client/: read once, served by hash.
import fs from 'node:fs';
import { contentHash } from '../outputs/content-hash.js';

export interface ClientFile {
  body: Buffer;
  hash: string;
  type: string;
}

// Beside this file in dist/; from the TypeScript sources (tests), in dist/ too.
const DIRECTORIES = [new URL('./client/', import.meta.url), new URL('../../dist/dashboard/client/', import.meta.url)];
const FILES = { 'dashboard.js': 'text/javascript; charset=utf-8', 'dashboard.css': 'text/css; charset=utf-8' } as const;

export type ClientFileName = keyof typeof FILES;

/** The bundled files; null when the package was not built (`npm run build` makes them). */
export function readClientFiles(): Map<ClientFileName, ClientFile> | null {
  const directory = DIRECTORIES.find((dir) => fs.existsSync(new URL('dashboard.js', dir)));
  if (!directory) return null;
  const files = new Map<ClientFileName, ClientFile>();
  for (const [name, type] of Object.entries(FILES) as [ClientFileName, string][]) {
    const body = fs.readFileSync(new URL(name, directory));
    files.set(name, { body, hash: contentHash(body), type });
  }
  return files;
}
