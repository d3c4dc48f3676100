// The bundled preview's join directory (src/io/join-directory.ts, README "The bundled preview"):
// each file written once per content, those no kept bundle reads removed, the directory of the
// process in the user's own, and what a process that is gone left there swept.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { PageBundleError } from '../../src/bundlers/join-files.js';
import { createJoinFiles } from '../../src/io/join-directory.js';

describe('createJoinFiles', function () {
  it('writes a file once per content, removes those not retained, and its directory at the end', async function () {
    const files = createJoinFiles();
    let asked = 0;
    const one = files.fileOf('/m/@t/a@1.0.0/modules/x?v=1', 'HASH1', 'js');
    const two = files.fileOf('/m/@t/a@1.0.0/modules/x?v=2', 'HASH2', 'js');
    await files.write([{ file: one, content: () => (asked++, 'one') }]);
    await files.write([{ file: one, content: () => (asked++, 'one') }, { file: two, content: async () => (asked++, 'two') }]);
    expect(asked).to.equal(2);
    expect(fs.readFileSync(two, 'utf8')).to.equal('two');
    files.retain(new Set([two]));
    expect(fs.existsSync(one)).to.equal(false);
    expect(fs.existsSync(two)).to.equal(true);
    // A file removed is written again when a join names it again.
    await files.write([{ file: one, content: () => 'one' }]);
    expect(fs.readFileSync(one, 'utf8')).to.equal('one');
    // An address that could climb out of the directory is not followed.
    expect(files.fileOf('/m/../../etc/passwd', 'H', 'js').startsWith(`${files.dir()}/`)).to.equal(true);
    expect(files.fileOf('/m/../../etc/passwd', 'H', 'js')).to.not.include('..');
    const dir = files.dir();
    files.remove();
    expect(fs.existsSync(dir)).to.equal(false);
  });

  it('says which file it could not write, as a join error (the page answers BUILD_FAILED, not a 500)', async function () {
    const files = createJoinFiles();
    try {
      fs.writeFileSync(path.join(files.dir(), 'm'), 'a file where a directory goes');
      let failure: unknown;
      await files.write([{ file: files.fileOf('/m/@t/a@1.0.0/modules/x', 'H', 'js'), content: () => 'x' }]).catch((error: unknown) => (failure = error));
      expect(failure).to.be.instanceOf(PageBundleError);
      expect((failure as Error).message).to.include('could not be written for the join');
    } finally {
      files.remove();
    }
  });

  describe('its directory', function () {
    // Bases of the test's own, the first one's `core-join-<uid>` in use as on /dev/shm.
    let bases: string[];
    const own = (base: string) => path.join(base, `core-join-${process.getuid!()}`);
    const goneProcess = () => spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    beforeEach(() => (bases = [fs.mkdtempSync(path.join(os.tmpdir(), 'core-join-bases-')), fs.mkdtempSync(path.join(os.tmpdir(), 'core-join-bases-'))]));
    afterEach(() => bases.forEach((base) => fs.rmSync(base, { recursive: true, force: true })));

    it("is a directory of the process in the user's own, removed with the service", function () {
      const files = createJoinFiles({ bases });
      const dir = files.dir();
      expect(path.dirname(dir)).to.equal(own(bases[0]!));
      expect(path.basename(dir)).to.match(new RegExp(`^${process.pid}-`));
      expect(fs.statSync(own(bases[0]!)).mode & 0o777).to.equal(0o700);
      files.remove();
      expect(fs.existsSync(dir)).to.equal(false);
    });

    it("removes what a process that is gone left in the user's own directories, never a running one's", function () {
      const gone = goneProcess();
      const left = bases.map((base) => (fs.mkdirSync(own(base), { mode: 0o700 }), fs.mkdtempSync(path.join(own(base), `${gone}-`))));
      const running = fs.mkdtempSync(path.join(own(bases[1]!), `${process.ppid}-`));
      const files = createJoinFiles({ bases });
      try {
        files.dir();
        expect(left.filter((dir) => fs.existsSync(dir))).to.deep.equal([]);
        expect(fs.existsSync(running)).to.equal(true);
      } finally {
        files.remove();
      }
    });

    it('removes the directories named the old way beside them (core-join-<pid>-*) of a process that is gone, by the same rule: never a running one\'s, nor a link, nor another name', function () {
      const gone = goneProcess();
      // Made before a service had a directory of the user's own: in each base itself.
      const left = bases.map((base) => fs.mkdtempSync(path.join(base, `core-join-${gone}-`)));
      fs.writeFileSync(path.join(left[0]!, 'outputs.js'), 'export {};\n');
      const running = fs.mkdtempSync(path.join(bases[1]!, `core-join-${process.ppid}-`));
      const elsewhere = fs.mkdtempSync(path.join(bases[0]!, 'elsewhere-'));
      const link = path.join(bases[0]!, `core-join-${gone}-linked`);
      fs.symlinkSync(elsewhere, link);
      const other = fs.mkdtempSync(path.join(bases[0]!, `core-joined-${gone}-`));
      const files = createJoinFiles({ bases });
      try {
        files.dir();
        expect(left.filter((dir) => fs.existsSync(dir))).to.deep.equal([]);
        expect(fs.existsSync(running), 'a running process\'s').to.equal(true);
        expect(fs.lstatSync(link).isSymbolicLink(), 'the link').to.equal(true);
        expect(fs.existsSync(elsewhere), 'where the link leads').to.equal(true);
        expect(fs.existsSync(other), 'another name').to.equal(true);
      } finally {
        files.remove();
      }
    });

    it("keeps a directory named the old way that is another user's", function () {
      if (process.getuid!() !== 0) this.skip(); // only root can give a directory away
      const left = fs.mkdtempSync(path.join(bases[0]!, `core-join-${goneProcess()}-`));
      fs.chownSync(left, 4321, 4321);
      const files = createJoinFiles({ bases });
      try {
        files.dir();
        expect(fs.existsSync(left)).to.equal(true);
      } finally {
        files.remove();
      }
    });

    // What the user's own name holds when it is not the user's alone: the join goes in the base itself, and nothing there is swept.
    function expectNotUsed(setUp: (dir: string) => void) {
      const gone = goneProcess();
      fs.mkdirSync(own(bases[1]!), { mode: 0o700 });
      const left = fs.mkdtempSync(path.join(own(bases[1]!), `${gone}-`));
      setUp(own(bases[1]!));
      const files = createJoinFiles({ bases: [bases[1]!] });
      try {
        const dir = files.dir();
        expect(path.dirname(dir)).to.equal(bases[1]);
        expect(path.basename(dir)).to.match(new RegExp(`^core-join-${process.pid}-`));
        expect(fs.existsSync(left), 'what it holds').to.equal(true);
      } finally {
        files.remove();
      }
    }

    it("is made in the base itself when the user's own name is a link", function () {
      expectNotUsed((dir) => {
        fs.renameSync(dir, path.join(bases[0]!, 'elsewhere'));
        fs.symlinkSync(path.join(bases[0]!, 'elsewhere'), dir);
      });
    });

    it("is made in the base itself when others may write in the user's own name", function () {
      expectNotUsed((dir) => fs.chmodSync(dir, 0o777));
    });

    it("is made in the base itself when the user's own name is another user's", function () {
      if (process.getuid!() !== 0) this.skip(); // only root can give a directory away
      expectNotUsed((dir) => fs.chownSync(dir, 4321, 4321));
    });
  });
});
