// Copies of the test fixtures in test/fixtures/ (basic, deep, errors) in fresh temporary directories.
import path from 'node:path';
import { TEST_FIXTURES_DIR, tempWorkspace } from './workspace.js';

export type FixtureName = 'basic' | 'deep' | 'errors';

export const fixtureWorkspace = (name: FixtureName, files: Record<string, string> = {}): string => tempWorkspace(files, path.join(TEST_FIXTURES_DIR, name));

/** The development query of README "Addresses", every parameter spelled out. */
export const DEV = 'target=browser&format=esm&env=development&min=false&sourcemap=inline&types=false&css=false';
/** The production query of README "Addresses". */
export const PROD = 'target=browser&format=esm&env=production&min=true&sourcemap=none&types=false&css=false';
