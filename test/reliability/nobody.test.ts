// The probe that decides whether the tests of unreadable files can run the service as
// `nobody`: a file under a directory private to root is out of its reach, and said so.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { nobodyCannotRun } from '../helpers/nobody.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('the probe of what nobody can reach', function () {
  before(function () {
    if (process.getuid?.() !== 0) this.skip(); // only root can run a process as another user
  });

  it('finds a file under a private directory out of reach, with the reason, and a readable one in reach', function () {
    const dir = tempWorkspace({ 'inner/file.js': '' });
    fs.chmodSync(dir, 0o755);
    fs.chmodSync(path.join(dir, 'inner'), 0o755);
    expect(nobodyCannotRun(path.join(dir, 'inner/file.js'))).to.equal(null);
    fs.chmodSync(path.join(dir, 'inner'), 0o700);
    expect(nobodyCannotRun(path.join(dir, 'inner/file.js'))).to.match(/^the user nobody cannot read .*inner\/file\.js .*a parent directory is private/);
  });
});
