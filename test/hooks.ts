// Root hooks: every service a test started is stopped, every temporary workspace removed,
// and esbuild's service process stopped, so the run ends without its keep-alive noise. Stopped
// while a call holds it, esbuild's process prints "all goroutines are asleep - deadlock!" at the
// exit: a call still running once every service is closed is a leak, and fails the run by name.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { esbuildCallsRunning } from '../src/bundlers/calls-in-flight.js';
import { recordEsbuildStarts } from './helpers/esbuild-process.js';
import { removeTemporaryDirs } from './helpers/workspace.js';
import { stopAll } from './helpers/service.js';

// Every state of every service the tests start (in this process and in `core` children) is
// frozen: a mutation of the state fails the test that made it.
process.env.CORE_DEBUG_FREEZE = '1';

// The build cache of every `core run` the tests start goes here, never into the home
// directory; writable by all, as some tests run the service as `nobody`. Each test workspace
// is a new directory, so a cache written for another one is foreign and never used.
const CACHE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'core-test-cache-'));
fs.chmodSync(CACHE_DIR, 0o777);
process.env.CORE_CACHE_DIR = CACHE_DIR;

// The esbuild processes of the service, told from tsx's own (test/helpers/esbuild-process.ts), from
// the first test file's load on.
const stopRecordingEsbuildStarts = recordEsbuildStarts();

export const mochaHooks = {
  async afterAll(this: unknown) {
    stopRecordingEsbuildStarts();
    await stopAll();
    removeTemporaryDirs();
    fs.rmSync(CACHE_DIR, { recursive: true, force: true });
    const running = esbuildCallsRunning();
    if (running.length > 0) throw new Error(`esbuild's process not stopped: every service is closed, and ${running.length === 1 ? 'this call still runs' : 'these calls still run'}: ${running.join('; ')}`);
    await esbuild.stop();
  },
};
