// Root hooks: every service a test started is stopped, every temporary workspace removed,
// and esbuild's service process stopped, so the run ends without its keep-alive noise.
import * as esbuild from 'esbuild';
import { removeTemporaryDirs } from './helpers/workspace.js';
import { stopAll } from './helpers/service.js';

// Every state of every service the tests start (in this process and in `core` children) is
// frozen: a mutation of the state fails the test that made it.
process.env.CORE_DEBUG_FREEZE = '1';

export const mochaHooks = {
  async afterAll(this: unknown) {
    await stopAll();
    removeTemporaryDirs();
    await esbuild.stop();
  },
};
