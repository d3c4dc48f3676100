// One read of the workspace reads each file and listing once (src/io/workspace-reads.ts).
import { expect } from 'chai';
import { onePassReader } from '../../src/io/workspace-reads.js';
import { readWorkspace } from '../../src/workspace/read-workspace.js';
import { createFileHashes } from '../../src/io/file-hashes.js';
import { memoryReader } from '../helpers/memory-reader.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value);

// Modules found by their module.json and by "exports", the sources found among candidate names,
// each module under its package's tsconfig: the pure read asks for some paths several times.
function workspaceFiles(): Record<string, string> {
  const files: Record<string, string> = { 'core.json': json({ packages: ['packages/a', 'packages/b'] }) };
  for (const name of ['a', 'b']) {
    files[`packages/${name}/package.json`] = json({ name: `@acme/${name}`, version: '1.0.0', exports: { './x': './src/x/index.js', './y': './src/y/index.js' }, core: { modules: 'modules' } });
    files[`packages/${name}/tsconfig.json`] = json({ compilerOptions: { rootDir: 'src', outDir: 'dist' } });
    files[`packages/${name}/src/x/index.ts`] = 'export const x = 1;';
    files[`packages/${name}/src/y/index.ts`] = 'export const y = 1;';
    files[`packages/${name}/modules/m/module.json`] = json({ entry: 'index.ts' });
    files[`packages/${name}/modules/m/index.ts`] = 'export const m = 1;';
  }
  return files;
}

const repeated = (asked: readonly string[]) => asked.filter((path, index) => asked.indexOf(path) !== index);

describe('onePassReader', () => {
  it('reads each file and listing once in a read of the workspace, and the model is the same', () => {
    const direct = memoryReader(workspaceFiles());
    const expected = readWorkspace(direct);
    expect(repeated(direct.asked), 'the pure read asks again: this test shows nothing otherwise').to.not.be.empty;

    const counted = memoryReader(workspaceFiles());
    const model = readWorkspace(onePassReader(counted));
    expect(repeated(counted.asked)).to.deep.equal([]);
    expect(model).to.deep.equal(expected);
    expect(model.modules.map((module) => module.specifier)).to.include.members(['@acme/a/x', '@acme/b/m']);
  });

  it('tells a file absent from a directory this pass listed without asking for it, and the model is the same', () => {
    // A module.json is looked for beside each module's entry, in a directory listed already to find the entry.
    const expected = readWorkspace(memoryReader(workspaceFiles()));
    const counted = memoryReader(workspaceFiles());
    const model = readWorkspace(onePassReader(counted));
    expect(model).to.deep.equal(expected);
    expect(expected.sources['packages/a/src/x/module.json'], 'the read asks for it, and finds none').to.equal(null);
    expect(counted.asked).to.include('packages/a/src/x/');
    expect(counted.asked).to.not.include('packages/a/src/x/module.json');
    expect(counted.asked, 'a file its directory lists is read').to.include('packages/a/modules/m/module.json');
  });

  it('asks for a file whose directory could not be listed: the listing tells nothing of it', () => {
    const disk = memoryReader({ 'a/b.json': '{}' });
    const unlisted = { ...disk, listDir: () => null };
    const reader = onePassReader(unlisted);
    expect(reader.listDir('a')).to.equal(null);
    expect(reader.readText('a/b.json')?.text).to.equal('{}');
  });

  it('asks for a file its directory lists under another case, as a file system that ignores case finds it', () => {
    const disk = memoryReader({ 'a/Module.json': '{}', 'a/x.ts': '' });
    const reader = onePassReader(disk);
    reader.listDir('a');
    expect(reader.readText('a/module.json')).to.equal(null);
    expect(reader.readText('a/tsconfig.json')).to.equal(null);
    expect(disk.asked).to.include('a/module.json');
    expect(disk.asked).to.not.include('a/tsconfig.json');
  });

  it('asks for any file of a directory that lists a name beyond ASCII (NFC or NFD), by the one rule the stamps prove absence by', () => {
    const nfd = 'cafe\u0301.json';
    const nfc = 'caf\u00e9.json';
    const files = { [`a/${nfd}`]: '{}', 'a/x.ts': '' };
    const disk = memoryReader(files);
    const reader = onePassReader(disk);
    reader.listDir('a');
    expect(reader.readText(`a/${nfd}`)?.text, 'present').to.equal('{}');
    expect(reader.readText(`a/${nfc}`), 'absent here, found by a file system that normalizes').to.equal(null);
    expect(reader.readText('a/tsconfig.json')).to.equal(null);
    expect(disk.asked).to.include.members([`a/${nfd}`, `a/${nfc}`, 'a/tsconfig.json']);
    // The same listing on disk: the stamps' `absentFromListing` tells nothing of it either.
    const hashes = createFileHashes(tempWorkspace(files));
    const listed = hashes.hash('a/')!;
    for (const name of [nfd, nfc, 'tsconfig.json']) expect(hashes.absentFromListing!(`a/${name}`, listed), name).to.equal(false);
  });

  it('remembers nothing from one read to the next: a new reader asks the disk again', () => {
    const disk = memoryReader(workspaceFiles());
    readWorkspace(onePassReader(disk));
    const first = [...disk.asked];
    readWorkspace(onePassReader(disk));
    expect(disk.asked.slice(first.length)).to.deep.equal(first);
  });
});
