// The worker that reads and hashes files ahead of their use, on a real temporary directory.
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { contentHash } from '../../src/outputs/content-hash.js';
import { createReadAhead } from '../../src/io/read-ahead.js';
import { createFileHashes } from '../../src/io/file-hashes.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('createReadAhead', () => {
  it('answers each file with the hash contentHash gives its bytes and the stat it was read under', async () => {
    const root = tempWorkspace({ 'a.ts': 'export const a = 1;\n', 'lib/b.css': 'b { color: red }\n' });
    const ahead = createReadAhead(root);
    try {
      const reads = await ahead.read([path.join(root, 'a.ts'), path.join(root, 'lib/b.css')]);
      const stats = fs.statSync(path.join(root, 'lib/b.css'));
      expect(reads.map((read) => read?.[0])).to.deep.equal([contentHash('export const a = 1;\n'), contentHash('b { color: red }\n')]);
      expect(reads[1]!.slice(1, 6)).to.deep.equal([stats.dev, stats.ino, stats.size, stats.mtimeMs, stats.ctimeMs]);
      expect(reads[1]![6]).to.be.at.least(Math.max(stats.mtimeMs, stats.ctimeMs) - 1000);
    } finally {
      await ahead.close();
    }
  });

  it('reads nothing absent, no directory, no link, no file of several names and nothing out of the workspace', async () => {
    const outside = tempWorkspace({ 'secret.ts': 'export const secret = 1;\n', 'deep/er/secret.ts': 'deeper\n' });
    const root = tempWorkspace({ 'a.ts': 'export const a = 1;\n', 'dir/c.ts': 'c\n', 'dir/sub/d.ts': 'd\n' });
    fs.symlinkSync(path.join(root, 'a.ts'), path.join(root, 'link.ts'));
    fs.symlinkSync(outside, path.join(root, 'away'));
    // A directory linked to one inside: its files are inside, read; under one linked outside, none is.
    fs.symlinkSync(path.join(root, 'dir'), path.join(root, 'within'));
    fs.linkSync(path.join(root, 'dir/c.ts'), path.join(root, 'twice.ts'));
    const ahead = createReadAhead(root);
    try {
      const names = ['gone.ts', 'dir', 'link.ts', 'away/secret.ts', 'away/deep/er/secret.ts', 'twice.ts', 'a.ts', 'within/sub/d.ts', 'dir/sub/d.ts'];
      const reads = await ahead.read(names.map((name) => path.join(root, name)));
      expect(Object.fromEntries(names.map((name, index) => [name, reads[index]?.[0] ?? null]))).to.deep.equal({
        'gone.ts': null,
        dir: null,
        'link.ts': null,
        'away/secret.ts': null,
        'away/deep/er/secret.ts': null,
        'twice.ts': null,
        'a.ts': contentHash('export const a = 1;\n'),
        'within/sub/d.ts': contentHash('d\n'),
        'dir/sub/d.ts': contentHash('d\n'),
      });
    } finally {
      await ahead.close();
    }
  });

  it("hashes ranges of bytes (a downloaded pack's parts) with SHA-256, a view's ranges its own; nothing once closed", async () => {
    const ahead = createReadAhead(tempWorkspace({}));
    const whole = Buffer.from('..first part|second part');
    const view = whole.subarray(2);
    const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
    try {
      const hashed = await ahead.sha256(view, [[0, 10], [11, 22], [0, 0]]);
      expect(hashed?.digests).to.deep.equal([sha256('first part'), sha256('second part'), sha256('')]);
      expect(Buffer.from(hashed!.bytes).toString(), 'the bytes hashed, given back').to.equal('first part|second part');
      expect(view.toString(), 'a view of a larger buffer: copied, still here').to.equal('first part|second part');
    } finally {
      await ahead.close();
    }
    expect(await ahead.sha256(view, [[0, 10]])).to.equal(null);
  });

  it('moves bytes that own their memory to the worker and back with the digests (a 6 MB pack is not copied)', async () => {
    const ahead = createReadAhead(tempWorkspace({}));
    const pack = Buffer.alloc(1024 * 1024, 'ab');
    const sha256 = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest('hex');
    const expected = sha256(pack);
    try {
      const hashing = ahead.sha256(pack, [[0, pack.length]]);
      expect(pack.length, 'moved: nothing left here while the worker has them').to.equal(0);
      const hashed = await hashing;
      expect(hashed?.digests).to.deep.equal([expected]);
      expect(sha256(hashed!.bytes), 'the same bytes, back').to.equal(expected);
    } finally {
      await ahead.close();
    }
  });

  it('answers nothing once closed: the main thread then reads for itself', async () => {
    const root = tempWorkspace({ 'a.ts': 'a\n' });
    const ahead = createReadAhead(root);
    expect((await ahead.read([path.join(root, 'a.ts')]))[0]).to.not.equal(null);
    await ahead.close();
    expect(await ahead.read([path.join(root, 'a.ts')])).to.deep.equal([null]);
  });

  it('lists a directory (a path ending in /) by the rule of listDir: the same hash, links to directories inside marked, nothing out of the workspace', async () => {
    const outside = tempWorkspace({ 'secret/s.ts': 's\n', 'secret/deeper/d.ts': 'd\n' });
    const root = tempWorkspace({ 'pkg/b.ts': 'b\n', 'pkg/a/index.ts': 'a\n', 'pkg/Z.json': '{}', 'other/c.ts': 'c\n' });
    fs.symlinkSync(path.join(root, 'other'), path.join(root, 'pkg/inside'));
    fs.symlinkSync(path.join(outside, 'secret'), path.join(root, 'pkg/away'));
    fs.symlinkSync(path.join(outside, 'secret'), path.join(root, 'leaving'));
    const hashes = createFileHashes(root);
    const ahead = createReadAhead(root);
    try {
      const reads = await ahead.read([`${root}/pkg/`, `${root}/./`, `${root}/leaving/`, `${root}/gone/`, `${root}/pkg/b.ts/`, `${root}/pkg/inside/`, `${root}/pkg/a/`, `${root}/leaving/deeper/`]);
      expect(reads[0]![0]).to.equal(hashes.listDir('pkg')!.hash);
      expect(reads[0]![7]).to.equal('Z.json\na/\naway\0>\nb.ts\ninside/');
      expect(reads[1]![0]).to.equal(hashes.listDir('.')!.hash);
      expect(reads.slice(2, 5)).to.deep.equal([null, null, null]);
      // Through a link inside the workspace (its real path asked), and below a directory listed before (its parent's).
      expect(reads[5]![0]).to.equal(hashes.listDir('pkg/inside')!.hash).and.to.equal(hashes.listDir('other')!.hash);
      expect(reads[6]![0]).to.equal(hashes.listDir('pkg/a')!.hash);
      // Below a link leaving the workspace: its real path is outside too.
      expect(reads[7]).to.equal(null);
      const stats = fs.statSync(path.join(root, 'pkg'));
      expect(reads[0]!.slice(1, 6)).to.deep.equal([stats.dev, stats.ino, stats.size, stats.mtimeMs, stats.ctimeMs]);
    } finally {
      await ahead.close();
    }
  });
  it('lists a directory holding a FIFO as listDir does: the special name marked in the hash, the FIFO never opened', async () => {
    const root = tempWorkspace({ 'pkg/a.ts': 'a\n', 'pkg/logo.svg': '<svg/>' });
    const hashes = createFileHashes(root);
    const regular = hashes.listDir('pkg')!.hash;
    fs.rmSync(path.join(root, 'pkg/logo.svg'));
    execFileSync('mkfifo', [path.join(root, 'pkg/logo.svg')]);
    const ahead = createReadAhead(root);
    try {
      const [listed] = await ahead.read([`${root}/pkg/`]);
      // A FIFO where a file was is a change of the listing: the module's check must see it.
      expect(listed![0]).to.equal(createFileHashes(root).listDir('pkg')!.hash).and.not.equal(regular);
      expect(listed![7]).to.equal('a.ts\nlogo.svg\0');
    } finally {
      await ahead.close();
    }
  });
});
