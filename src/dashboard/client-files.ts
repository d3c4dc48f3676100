// The dashboard's browser files, bundled at build time (scripts/build-dashboard.js) into
// dist/dashboard/client/: read once, served by hash.
import fs from 'node:fs';
import path from 'node:path';
import { packageFile } from '../package-files.js';
import { contentHash } from '../outputs/content-hash.js';

export interface ClientFile {
  body: Buffer;
  hash: string;
  type: string;
}

// In dist/, whichever form this code runs in.
const DIRECTORY = packageFile('dist/dashboard/client');
const FILES = { 'dashboard.js': 'text/javascript; charset=utf-8', 'dashboard.css': 'text/css; charset=utf-8' } as const;

export type ClientFileName = keyof typeof FILES;

/** The bundled files; null when the package was not built (`npm run build` makes them). */
export function readClientFiles(): Map<ClientFileName, ClientFile> | null {
  if (!fs.existsSync(path.join(DIRECTORY, 'dashboard.js'))) return null;
  const files = new Map<ClientFileName, ClientFile>();
  for (const [name, type] of Object.entries(FILES) as [ClientFileName, string][]) {
    const body = fs.readFileSync(path.join(DIRECTORY, name));
    files.set(name, { body, hash: contentHash(body), type });
  }
  return files;
}
