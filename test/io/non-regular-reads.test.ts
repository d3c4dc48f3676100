// Every read of a workspace file of our own refuses what is not a regular file, and never waits on
// a FIFO (README "Files that are not files"). A stat taken before the open proves nothing: the path
// may become a FIFO in between, and the open is what blocks; so each reader is shown a FIFO where
// the stat it trusts (given, or taken) said a regular file was. Without the fix each of these
// reads blocks the process for good (the run is then ended from outside).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { createAssetFiles } from '../../src/io/asset-files.js';
import { createConfinedPaths } from '../../src/io/confined-paths.js';
import { readConfinedFile } from '../../src/io/file-reads.js';
import { findInstalled } from '../../src/io/installed-packages.js';
import { createJoinedPages } from '../../src/io/joined-pages.js';
import { remoteCacheSettings } from '../../src/io/remote-cache/settings.js';
import { createOutputPacks } from '../../src/io/build-cache/output-packs.js';
import { removeCachesOfRemovedWorkspaces } from '../../src/io/cache-location.js';
import { isNotRegularFile, readRegularFile, readRegularFileAsync } from '../../src/regular-files.js';
import { tempWorkspace } from '../helpers/workspace.js';

const mkfifo = (file: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  execFileSync('mkfifo', [file]);
};

/** What `read` threw, or null. */
function thrown(read: () => unknown): unknown {
  try {
    read();
    return null;
  } catch (error) {
    return error;
  }
}

describe('reads of files that are not regular files', function () {
  it('readRegularFile reads a file, and refuses a FIFO, a socket, a directory and a device by what they are', async function () {
    const root = tempWorkspace({ 'a.txt': 'bytes', 'dir/b.txt': '' });
    mkfifo(path.join(root, 'pipe'));
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(root, 'socket'), resolve));
    try {
      expect(readRegularFile(path.join(root, 'a.txt')).bytes.toString()).to.equal('bytes');
      const refusals = ['pipe', 'socket', 'dir'].map((name) => thrown(() => readRegularFile(path.join(root, name))));
      expect(refusals.every(isNotRegularFile), String(refusals)).to.equal(true);
      expect(refusals.map((error) => (error as Error).message.replace(root, 'ROOT'))).to.deep.equal([
        '"ROOT/pipe" is a FIFO (named pipe), not a regular file: a build reads regular files only (a FIFO would wait for a writer forever); put a file there',
        '"ROOT/socket" is a socket, not a regular file: a build reads regular files only (a FIFO would wait for a writer forever); put a file there',
        '"ROOT/dir" is a directory, not a regular file: a build reads regular files only (a FIFO would wait for a writer forever); put a file there',
      ]);
      expect((thrown(() => readRegularFile('/dev/null')) as Error).message).to.match(/^"\/dev\/null" is a character device, not a regular file/);
      expect((thrown(() => readRegularFile(path.join(root, 'gone'))) as NodeJS.ErrnoException).code).to.equal('ENOENT');
    } finally {
      server.close();
    }
  });

  it('readConfinedFile (file hashes, manifests, tsconfig, code frames): a FIFO where the stat saw a file is not a file', function () {
    const root = tempWorkspace({ 'app/main.ts': 'export const x = 1;\n' });
    const paths = createConfinedPaths(root);
    const fileStats = fs.statSync(path.join(root, 'app/main.ts'));
    fs.rmSync(path.join(root, 'app/main.ts'));
    mkfifo(path.join(root, 'app/main.ts'));
    expect(readConfinedFile(paths, 'app/main.ts', fileStats)).to.equal('not-a-file');
  });

  it('the asset reader (served assets, `core dist`): a FIFO where the stat saw a file is no asset', function () {
    const root = tempWorkspace({ 'packages/app/main/logo.svg': '<svg/>' });
    const assets = createAssetFiles(root);
    expect(assets.read('packages/app', 'packages/app/main/logo.svg')?.content.toString()).to.equal('<svg/>');
    const fileStats = fs.statSync(path.join(root, 'packages/app/main/logo.svg'));
    fs.rmSync(path.join(root, 'packages/app/main/logo.svg'));
    mkfifo(path.join(root, 'packages/app/main/logo.svg'));
    const statSync = fs.statSync;
    // The stat taken before the swap: the open meets the FIFO.
    Object.assign(fs, { statSync: (file: fs.PathLike, options?: fs.StatSyncOptions) => (String(file).endsWith('logo.svg') ? fileStats : statSync(file, options)) });
    try {
      expect(assets.read('packages/app', 'packages/app/main/logo.svg')).to.equal(null);
    } finally {
      Object.assign(fs, { statSync });
    }
  });

  it("the local CDN's manifest read: an installed package whose package.json is a FIFO is not installed", function () {
    const root = tempWorkspace({ 'node_modules/pkg/index.js': 'export default 1;\n' });
    mkfifo(path.join(root, 'node_modules/pkg/package.json'));
    expect(findInstalled('pkg', root, 'followed')).to.equal(null);
  });

  it('the remote cache settings: a core.json that is a FIFO declares no cache', function () {
    const root = tempWorkspace();
    mkfifo(path.join(root, 'core.json'));
    expect(remoteCacheSettings(root, {})).to.deep.equal({ settings: null });
  });

  it("the bundled preview's kept pages: a FIFO in place of a page is no page", function () {
    const dir = tempWorkspace();
    const pages = createJoinedPages(dir, 'identity');
    // The page's file name, whatever it is: the only name the reader opens for the key.
    const opened: string[] = [];
    const openSync = fs.openSync;
    fs.openSync = ((file: fs.PathLike, ...rest: unknown[]) => {
      opened.push(String(file));
      return (openSync as (...args: unknown[]) => number)(file, ...rest);
    }) as typeof fs.openSync;
    try {
      pages.read('key');
    } catch {
      // absent: nothing to read
    } finally {
      fs.openSync = openSync;
    }
    expect(opened).to.have.length(1);
    mkfifo(opened[0]!);
    expect(pages.read('key')).to.equal(null);
  });

  describe("the build cache's reads off the main thread (README \"The build cache\", \"Damage\")", function () {
    // Without the fix each read waits in a worker thread's open for ever: the test fails by this timeout.
    this.timeout(10_000);

    it('readRegularFileAsync refuses a FIFO, a link (never followed), and a file larger than its bound', async function () {
      const root = tempWorkspace({ 'a.txt': 'bytes', 'big.txt': 'x'.repeat(100) });
      mkfifo(path.join(root, 'pipe'));
      fs.symlinkSync(path.join(root, 'a.txt'), path.join(root, 'link'));
      const refused = async (file: string, maxBytes: number) => (await readRegularFileAsync(path.join(root, file), { maxBytes, noFollow: true }).then(() => null, (error: Error) => error))?.message.replace(root, 'ROOT');
      expect((await readRegularFileAsync(path.join(root, 'a.txt'), { maxBytes: 5, noFollow: true })).bytes.toString()).to.equal('bytes');
      expect(await refused('pipe', 100)).to.match(/^"ROOT\/pipe" is a FIFO \(named pipe\), not a regular file/);
      expect(await refused('link', 100)).to.match(/^"ROOT\/link" is a symbolic link, not a regular file/);
      expect(await refused('big.txt', 99)).to.equal('"ROOT/big.txt" is 100 bytes, more than the 99 it may be');
      expect((thrown(() => readRegularFile(path.join(root, 'link'), { maxBytes: 100, noFollow: true })) as Error).message.replace(root, 'ROOT')).to.match(/^"ROOT\/link" is a symbolic link/);
      expect(readRegularFile(path.join(root, 'link')).bytes.toString()).to.equal('bytes'); // unbounded reads of workspace files still follow links
    });

    it("the removal of removed workspaces' caches: an index in the shared place that is a FIFO is never waited on, and its cache is left alone", async function () {
      const shared = path.join(tempWorkspace(), 'core-js-packages');
      const mine = path.join(shared, '0123456789abcdef');
      for (const id of ['0123456789abcdef', 'aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb']) fs.mkdirSync(path.join(shared, id), { recursive: true });
      mkfifo(path.join(shared, 'aaaaaaaaaaaaaaaa', 'builds.json'));
      fs.writeFileSync(path.join(shared, 'bbbbbbbbbbbbbbbb', 'builds.json'), JSON.stringify({ root: path.join(shared, 'a workspace removed') }));
      await removeCachesOfRemovedWorkspaces(mine);
      expect(fs.readdirSync(shared).sort()).to.deep.equal(['0123456789abcdef', 'aaaaaaaaaaaaaaaa']);
    });

    it("a tidy of the packs: an index on disk that is a FIFO is never waited on, and names every pack (none removed)", async function () {
      const dir = tempWorkspace();
      const outputs = path.join(dir, 'outputs');
      fs.mkdirSync(outputs);
      fs.writeFileSync(path.join(outputs, 'aaaaaaaaaaaaaaaa.pack'), 'bytes');
      const packs = createOutputPacks(outputs);
      packs.read([{ file: 'aaaaaaaaaaaaaaaa.pack', at: {} }]);
      mkfifo(path.join(dir, 'builds.json'));
      await packs.tidy([], path.join(dir, 'builds.json'));
      expect(fs.readdirSync(outputs)).to.deep.equal(['aaaaaaaaaaaaaaaa.pack']);
    });
  });
});
