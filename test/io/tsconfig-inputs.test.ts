// The config files a build depends on (README "Bundling real code"): the places a tsconfig.json,
// a jsconfig.json beside it, or a package.json could decide how a source compiles and resolves.
import { expect } from 'chai';
import { createFileHashes } from '../../src/io/file-hashes.js';
import { createTsconfigInputs } from '../../src/io/tsconfig-inputs.js';
import { tempWorkspace } from '../helpers/workspace.js';

const inputsOf = (files: Record<string, string>, entry: string) => createTsconfigInputs(createFileHashes(tempWorkspace(files)))(entry).sort();

describe('createTsconfigInputs', function () {
  it('names the places of a workspace at the root without a directory: tsconfig.json, jsconfig.json and package.json', function () {
    expect(inputsOf({ 'index.ts': 'export {};\n', 'jsconfig.json': '{}', 'package.json': '{}' }, 'index.ts')).to.deep.equal(['jsconfig.json', 'package.json', 'tsconfig.json']);
    // The root's tsconfig.json is the nearest: no jsconfig.json is looked for beside it.
    expect(inputsOf({ 'index.ts': 'export {};\n', 'tsconfig.json': '{}' }, 'index.ts')).to.deep.equal(['package.json', 'tsconfig.json']);
  });

  it('names each place from the source up to the nearest config, and up to the nearest package.json', function () {
    const files = { 'packages/a/main/index.ts': 'export {};\n', 'packages/a/package.json': '{}', 'jsconfig.json': '{}' };
    expect(inputsOf(files, 'packages/a/main/index.ts')).to.deep.equal([
      'jsconfig.json',
      'packages/a/jsconfig.json',
      'packages/a/main/jsconfig.json',
      'packages/a/main/package.json',
      'packages/a/main/tsconfig.json',
      'packages/a/package.json',
      'packages/a/tsconfig.json',
      'packages/jsconfig.json',
      'packages/tsconfig.json',
      'tsconfig.json',
    ]);
  });
});
