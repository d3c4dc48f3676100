// Joining a page (src/bundlers/page-bundle.ts): esbuild reads each output from a file written
// once per content and finds the modules by alias; references inside an output keep meaning
// what they mean at its own address.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { createJoinFiles, PageBundleError, type JoinFiles } from '../../src/bundlers/join-files.js';
import { bundleCode, bundlePage, bundlePageMaps, joinedFiles, type BundledModule, type PageBundleInput } from '../../src/bundlers/page-bundle.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { notStartingWith } from '../../src/bundlers/filters.js';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const DEV = '?target=browser&env=development';

function module(address: string, code: string): BundledModule {
  const hash = contentHash(code);
  return { address: `${address}${DEV}&v=${hash}`, code, hash };
}

function page(): PageBundleInput {
  return {
    entry: '@t/app/main',
    modules: new Map([
      ['@t/app/main', module('/m/@t/app@1.0.0/modules/main', "import { lib } from '@t/lib';\nimport { badge } from '@t/lib/badge';\nimport helper from '../assets/main/helper.js';\nimport remote from 'https://cdn.test/remote.js';\nimport absolute from '/u/absolute.js';\nexport const main = [lib, badge, helper, remote, absolute, new URL('../assets/main/logo.svg', import.meta.url).href];\ndocument.title = String(main);\n")],
      ['@t/lib', module('/m/@t/lib@2.0.0/modules', "export const lib = 'LIB_MARKER';\n")],
    ]),
    sheets: [
      { address: `/m/@t/app@1.0.0/styles/main${DEV}`, styles: '.main { background: url(../assets/main/logo.svg); }\n@import "https://cdn.test/font.css";\n', hash: contentHash('main-sheet') },
      { address: `/m/@t/lib@2.0.0/styles${DEV}`, styles: '.lib { color: rgb(1, 2, 3); }\n', hash: contentHash('lib-sheet') },
    ],
    // Not joined (broken, or loaded on its own), under the joined `@t/lib`.
    separate: ['@t/lib/badge'],
  };
}

describe('bundlePage', function () {
  let files: JoinFiles;
  beforeEach(() => (files = createJoinFiles()));
  afterEach(() => files.remove());

  it('joins the outputs read from files: a separate specifier under a joined one stays bare, references mean what they meant at each address', async function () {
    const { code, styles } = await bundlePage(page(), files);
    const joined = text(code);
    expect(joined).to.include('LIB_MARKER');
    expect(joined).to.match(/from "@t\/lib\/badge"/);
    expect(joined).to.include('"/m/@t/app@1.0.0/assets/main/helper.js"');
    expect(joined).to.include('"https://cdn.test/remote.js"');
    expect(joined).to.include('"/u/absolute.js"');
    // import.meta.url of a joined module is its own address.
    expect(joined).to.include('new URL("/m/@t/app@1.0.0/modules/main');
    const sheet = text(styles);
    expect(sheet).to.include('url(/m/@t/app@1.0.0/assets/main/logo.svg)');
    expect(sheet).to.include('https://cdn.test/font.css');
    expect(sheet.indexOf('.main')).to.be.lessThan(sheet.indexOf('.lib'));
    // Every output is a file of the join directory, named by its address and hash.
    const written = joinedFiles(page(), files).filter((file) => !file.includes('.map.'));
    for (const file of written) expect(fs.existsSync(file), file).to.equal(true);
    expect(written).to.include(`${files.dir()}/m/@t/lib@2.0.0/modules.${page().modules.get('@t/lib')!.hash}.js`);
  });

  it('joins the same code without the inline maps as with them, and reads no inline map when joining without', async function () {
    const input = page();
    const map = (source: string) => `//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify({ version: 3, sources: [source], sourcesContent: ['x'], mappings: 'AAAA', names: [] })).toString('base64')}\n`;
    const withMaps = new Map([...input.modules].map(([specifier, { address, code }]) => [specifier, module(address.replace(/\?.*$/, ''), `${code}${map(`packages/${specifier}.ts`)}`)]));
    input.modules = withMaps;
    input.sheets = input.sheets.map((sheet) => ({ ...sheet, styles: `${sheet.styles}/*# sourceMappingURL=data:application/json;base64,${Buffer.from('{"version":3,"sources":["s.css"],"mappings":"AAAA","names":[]}').toString('base64')} */\n` }));
    const { code } = await bundlePage(input, files);
    for (const file of joinedFiles(input, files).filter((file) => !file.includes('.map.'))) expect(fs.readFileSync(file, 'utf8'), file).to.not.include('sourceMappingURL=data:');
    await bundlePageMaps(input, files);
    for (const file of joinedFiles(input, files).filter((file) => file.includes('.map.'))) expect(fs.readFileSync(file, 'utf8'), file).to.include('sourceMappingURL=data:');
    // The code the maps describe: the same lines, but for the comments naming the files.
    const withMap = text((await bundleCode(input, files, true))[0]).replace(/\/\/# sourceMappingURL=page\.js\.map\n$/, '');
    const lines = (source: string) => source.split('\n').map((line) => (line.startsWith('// ') ? '// (a file)' : line));
    expect(lines(text(code))).to.deep.equal(lines(withMap));
  });

  it('names the sources of the joined maps as the outputs own maps do, not from the join directory', async function () {
    const input = page();
    const lib = module('/m/@t/lib@2.0.0/modules', "export const lib = 'LIB_MARKER';\n//# sourceMappingURL=data:application/json;base64," + Buffer.from(JSON.stringify({ version: 3, sources: ['packages/lib/index.ts'], sourcesContent: ["export const lib = 'LIB_MARKER';\n"], mappings: 'AAAA', names: [] })).toString('base64') + '\n');
    input.modules = new Map([...input.modules, ['@t/lib', lib]]);
    const { codeMap } = await bundlePageMaps(input, files);
    const { sources } = JSON.parse(text(codeMap)) as { sources: string[] };
    expect(sources).to.include('packages/lib/index.ts');
    expect(sources.some((source) => source.includes(path.basename(files.dir())) || source.startsWith('m/'))).to.equal(false);
  });
});

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

describe('notStartingWith', function () {
  it('matches exactly the paths that do not start with the prefix', function () {
    const prefix = '/tmp/core-join-12-a.b[c]^-\\/';
    const filter = notStartingWith(prefix);
    for (const path of [`${prefix}m/x.css`, prefix]) expect(filter.test(path), path).to.equal(false);
    for (const path of ['', '/', '/tmp/core-join-12-a.b[c]^-\\', '/tmp/core-join-12-aXb', '../logo.svg', 'x.css', 'https://cdn.test/a.css']) expect(filter.test(path), path).to.equal(true);
  });
});
