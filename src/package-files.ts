// The package's own files: its manifest, the workspace template, the browser code built into
// dist/. This file sits one folder below the package's root in every form the code runs in:
// src/ (the TypeScript sources, under test), dist/ (compiled), and dist/core.cjs, the command
// line in one file (ARCHITECTURE.md, "The command in one file"), where it is bundled.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A path inside the package, from its root. */
export const packageFile = (...segments: string[]): string => path.join(PACKAGE_ROOT, ...segments);

/** Running from the TypeScript sources (the tests), not from dist/. */
export const FROM_SOURCES = import.meta.url.endsWith('.ts');
