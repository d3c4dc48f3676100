// Where things are: the repository, the compiled service, the generated workloads.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const REPO = path.dirname(BENCH_DIR);
export const DIST = path.join(REPO, 'dist');
export const BIN = path.join(REPO, 'bin', 'core.js');
export const FIXTURES = path.join(REPO, 'fixtures');
/** Generated workloads and results (ignored by git). */
export const WORK = path.join(BENCH_DIR, '.work');
export const CHILDREN = path.join(BENCH_DIR, 'children');

/** A module of the compiled service, as an importable URL. */
export const distModule = (relative) => new URL(`file://${path.join(DIST, relative)}`).href;
