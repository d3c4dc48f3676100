// Root hooks: every service a test started is stopped, every temporary workspace removed.
import { removeTemporaryDirs } from './helpers/workspace.js';
import { stopAll } from './helpers/service.js';

export const mochaHooks = {
  async afterAll(this: unknown) {
    await stopAll();
    removeTemporaryDirs();
  },
};
