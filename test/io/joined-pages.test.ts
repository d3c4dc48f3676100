// The joined pages kept beside the build cache (src/io/joined-pages.ts): read back byte for byte
// under the key and identity they were written with, a miss under any other or when damaged,
// and only the last few kept.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ABANDONED_MS } from '../../src/io/build-cache/write-atomically.js';
import { createJoinedPages } from '../../src/io/joined-pages.js';

describe('createJoinedPages', () => {
  let dir: string;
  beforeEach(() => {
    dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'core-joined-pages-')), 'pages');
  });
  afterEach(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));

  const page = (n: number) => ({ code: Buffer.from(`export const n = ${n};\n`), styles: [Buffer.from(`.n${n} { color: red }\n`)] });
  const pageFiles = () => fs.readdirSync(dir).filter((name) => name.endsWith('.page'));

  it('reads back what it wrote under the same key and identity, and nothing under another', async () => {
    const pages = createJoinedPages(dir, 'identity-1');
    expect(pages.read('KEY1'), 'nothing written yet').to.equal(null);
    await pages.write('KEY1', page(1));
    expect(pages.read('KEY1')).to.deep.equal(page(1));
    expect(pages.read('KEY2')).to.equal(null);
    expect(createJoinedPages(dir, 'identity-2').read('KEY1'), 'joined by other code').to.equal(null);
  });

  it('says whether any page is saved: an earlier run served a bundled page', async () => {
    const pages = createJoinedPages(dir, 'identity-1');
    expect(pages.any(), 'no directory yet').to.equal(false);
    await pages.write('KEY1', page(1));
    expect(pages.any()).to.equal(true);
    expect(createJoinedPages(dir, 'identity-2').any(), 'a page of other code is still a page served').to.equal(true);
  });

  it('keeps an empty stylesheet empty', async () => {
    const pages = createJoinedPages(dir, 'identity-1');
    await pages.write('KEY1', { code: Buffer.from('x'), styles: [Buffer.alloc(0)] });
    expect(pages.read('KEY1')).to.deep.equal({ code: Buffer.from('x'), styles: [Buffer.alloc(0)] });
  });

  it('reads back each part of the joined sheet in its order, and takes a part whose bytes changed as a miss', async () => {
    const pages = createJoinedPages(dir, 'identity-1');
    const parted = { code: Buffer.from('x'), styles: [Buffer.from('.a { color: red }\n'), Buffer.alloc(0), Buffer.from('.b { color: blue }\n')] };
    await pages.write('KEY1', parted);
    expect(pages.read('KEY1')).to.deep.equal(parted);
    const file = path.join(dir, pageFiles()[0]!);
    fs.writeFileSync(file, Buffer.from(fs.readFileSync(file, 'utf8').replace('.b {', '.c {')));
    expect(pages.read('KEY1'), 'a changed byte of the last part').to.equal(null);
  });

  it('takes a page whose bytes changed, or were cut short, or whose header is not JSON, as a miss', async () => {
    const pages = createJoinedPages(dir, 'identity-1');
    await pages.write('KEY1', page(1));
    const [name] = pageFiles();
    const file = path.join(dir, name!);
    const good = fs.readFileSync(file);
    fs.writeFileSync(file, Buffer.from(good.toString('utf8').replace('n = 1', 'n = 2')));
    expect(pages.read('KEY1'), 'a changed byte').to.equal(null);
    fs.writeFileSync(file, good.subarray(0, good.byteLength - 1));
    expect(pages.read('KEY1'), 'cut short').to.equal(null);
    fs.writeFileSync(file, Buffer.concat([Buffer.from('{not json\n'), good.subarray(good.indexOf(0x0a) + 1)]));
    expect(pages.read('KEY1'), 'a header that is not JSON').to.equal(null);
    fs.writeFileSync(file, Buffer.from('null\n'));
    expect(pages.read('KEY1'), 'a header of another shape').to.equal(null);
  });

  it('keeps the last four pages and removes a temporary file its writer abandoned', async () => {
    const pages = createJoinedPages(dir, 'identity-1');
    for (const n of [1, 2, 3, 4]) {
      await pages.write(`KEY${n}`, page(n));
      // The newest are kept by their time of writing: each one older than the next.
      const [newest] = fs.readdirSync(dir).filter((name) => name.endsWith('.page')).map((name) => path.join(dir, name)).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
      const past = new Date(Date.now() - (10 - n) * 1000);
      fs.utimesSync(newest!, past, past);
    }
    const abandoned = path.join(dir, `${'a'.repeat(22)}.page.12345.0123abcd.tmp`);
    fs.writeFileSync(abandoned, 'half a page');
    const old = new Date(Date.now() - ABANDONED_MS - 60_000);
    fs.utimesSync(abandoned, old, old);
    await pages.write('KEY5', page(5));
    expect(pageFiles()).to.have.length(4);
    expect(pages.read('KEY1'), 'the oldest removed').to.equal(null);
    for (const n of [2, 3, 4, 5]) expect(pages.read(`KEY${n}`)).to.deep.equal(page(n));
    expect(fs.existsSync(abandoned)).to.equal(false);
  });

  describe('a temporary file of a page a killed write left, judged by the injected clock from its last write', () => {
    /** A service whose clock is `sinceWritten` after the temporary file's mtime writes a page. */
    async function writtenAfter(sinceWritten: number): Promise<string[]> {
      fs.mkdirSync(dir, { recursive: true });
      const temporary = path.join(dir, `${'a'.repeat(22)}.page.12345.0123abcd.tmp`);
      fs.writeFileSync(temporary, 'half a page');
      const written = fs.statSync(temporary).mtimeMs;
      await createJoinedPages(dir, 'identity-1', () => written + sinceWritten).write('KEY1', page(1));
      return fs.readdirSync(dir).filter((name) => name.endsWith('.tmp'));
    }

    it('is removed once ABANDONED_MS have passed', async () => {
      expect(await writtenAfter(ABANDONED_MS)).to.deep.equal([]);
    });
    it('is kept while younger: a write under way', async () => {
      expect(await writtenAfter(ABANDONED_MS - 1_000)).to.deep.equal([`${'a'.repeat(22)}.page.12345.0123abcd.tmp`]);
    });
  });

  it('does not fail when it cannot write: the next start joins again', async () => {
    const blocked = path.join(path.dirname(dir), 'a-file');
    fs.writeFileSync(blocked, '');
    const pages = createJoinedPages(path.join(blocked, 'pages'), 'identity-1');
    await pages.write('KEY1', page(1));
    expect(pages.read('KEY1')).to.equal(null);
  });
});
