import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createBuildCache } from '../../src/io/build-cache.js';
import { createFileHashes } from '../../src/io/file-hashes.js';
import { createOutputCache } from '../../src/outputs/output-cache.js';
import { buildsEverything } from '../../src/service/effect-deps.js';
import { tempWorkspace } from '../helpers/workspace.js';

// README "Performance": esbuild's process is started beside the workspace read on a start that
// builds every module, and never on one that restores from a cache.
describe('a start that builds every module', () => {
  let dir: string;
  const cacheIn = (cacheDir: string) => createBuildCache(cacheDir, dir, { service: 'test', esbuild: '0', bundlers: 'b' }, { hashes: createFileHashes(dir), outputs: createOutputCache(), reader: 'r' });
  beforeEach(() => {
    dir = tempWorkspace();
  });

  it('is a start without a build cache, or with one that has no index yet, and no team cache', () => {
    expect(buildsEverything(null, false), 'no build cache').to.equal(true);
    expect(buildsEverything(cacheIn(dir), false), 'an empty cache directory').to.equal(true);
    expect(buildsEverything(cacheIn(path.join(dir, 'not-made-yet')), false), 'no cache directory yet').to.equal(true);
  });

  // README "Files that are not files": at the index's name, what the read at start refuses as
  // damage is no index, so such a start builds everything (and asks the team cache early), never waiting.
  it('is a start whose index is a FIFO, a directory, or a link (to a file outside or in place)', () => {
    const index = path.join(dir, 'builds.json');
    execFileSync('mkfifo', [index]);
    expect(buildsEverything(cacheIn(dir), false), 'a FIFO').to.equal(true);
    fs.rmSync(index);
    fs.mkdirSync(index);
    expect(buildsEverything(cacheIn(dir), false), 'a directory').to.equal(true);
    fs.rmSync(index, { recursive: true });
    const outside = path.join(tempWorkspace(), 'elsewhere.json');
    fs.writeFileSync(outside, '{}');
    fs.symlinkSync(outside, index);
    expect(buildsEverything(cacheIn(dir), false), 'a link leading out').to.equal(true);
    fs.rmSync(index);
    fs.symlinkSync('/dev/zero', index);
    expect(buildsEverything(cacheIn(dir), false), 'a link to a device').to.equal(true);
    fs.rmSync(index);
    fs.writeFileSync(index, '{}');
    expect(buildsEverything(cacheIn(dir), false), 'a regular file').to.equal(false);
  });

  it('is not a start with a build cache index, nor one with a team cache to restore from', () => {
    fs.writeFileSync(path.join(dir, 'builds.json'), '{}');
    expect(buildsEverything(cacheIn(dir), false), 'a cache index').to.equal(false);
    expect(buildsEverything(null, true), 'a team cache').to.equal(false);
    expect(buildsEverything(cacheIn(path.join(dir, 'not-made-yet')), true), 'an empty build cache and a team cache').to.equal(false);
  });
});
