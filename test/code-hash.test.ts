// The hashes of the service's own code (src/code-hash.ts): the workspace reader's covers the io/
// rules a model's sources are listed and checked by, so a service whose listing rules changed
// takes no model (the team's, the build cache's) read under the old ones.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { bundlersCodeHash, joinedPagesCodeHash, workspaceReaderCodeHash } from '../src/code-hash.js';
import { PROJECT_DIR, tempWorkspace } from './helpers/workspace.js';

const LISTING_RULES = ['io/file-reads', 'io/file-hashes', 'io/confined-paths', 'io/read-ahead', 'io/read-links', 'io/workspace-reads'];
const RECORDING_RULES = ['workspace/resolution', 'workspace/files-read', 'workspace/tsconfig', 'io/build-inputs', 'io/tsconfig-inputs', 'io/build-facts'];

/** A code base as src/ holds it, with `changed` edited: a new directory each (the hashes are computed once per base). */
function codeBase(changed?: string): string {
  const files: Record<string, string> = {
    'workspace/read-workspace.ts': 'export const read = 1;\n',
    'workspace/generated/module-schema.ts': 'export const validate = 1;\n',
    'io/tree-watcher.ts': 'export const watch = 1;\n',
    'bundlers/esbuild.ts': 'export const bundle = 1;\n',
    'bundlers/plugins/assets.ts': 'export const plugin = 1;\n',
    'development/bundled-preview.ts': 'export const plan = 1;\n',
  };
  for (const module of [...LISTING_RULES, ...RECORDING_RULES]) files[`${module}.ts`] = `export const rule = ${JSON.stringify(module)};\n`;
  const base = tempWorkspace(files);
  if (changed) fs.appendFileSync(path.join(base, changed), '// changed\n');
  return base;
}

describe('workspaceReaderCodeHash', () => {
  it("changes with the workspace reader's code, its manifest validators and each io/ module of the listing rules, not with another of io/", () => {
    const original = workspaceReaderCodeHash(codeBase());
    expect(workspaceReaderCodeHash(codeBase()), 'the same code').to.equal(original);
    expect(workspaceReaderCodeHash(codeBase('workspace/read-workspace.ts'))).to.not.equal(original);
    // probe56: a manifest schema changed (schemas/, compiled into generated/) took the model read under the old one.
    expect(workspaceReaderCodeHash(codeBase('workspace/generated/module-schema.ts')), 'a manifest validator').to.not.equal(original);
    for (const module of LISTING_RULES) expect(workspaceReaderCodeHash(codeBase(`${module}.ts`)), module).to.not.equal(original);
    expect(workspaceReaderCodeHash(codeBase('io/tree-watcher.ts')), 'not a listing rule').to.equal(original);
  });

  it('is the hash of the package own code by default', () => {
    expect(workspaceReaderCodeHash()).to.equal(workspaceReaderCodeHash(path.join(PROJECT_DIR, 'src')));
  });
});

describe('bundlersCodeHash', () => {
  // A build cache entry keeps the inputs its build recorded; restored under rules that would record
  // other paths (a name tried first, a config place), it would be checked against the wrong ones.
  it('changes with the bundlers, their plugins and each module of the rules a build\'s inputs are recorded by, not with another', () => {
    const original = bundlersCodeHash(codeBase());
    expect(bundlersCodeHash(codeBase()), 'the same code').to.equal(original);
    expect(bundlersCodeHash(codeBase('bundlers/esbuild.ts'))).to.not.equal(original);
    expect(bundlersCodeHash(codeBase('bundlers/plugins/assets.ts'))).to.not.equal(original);
    for (const module of RECORDING_RULES) expect(bundlersCodeHash(codeBase(`${module}.ts`)), module).to.not.equal(original);
    expect(bundlersCodeHash(codeBase('workspace/read-workspace.ts')), 'not a recording rule').to.equal(original);
    expect(bundlersCodeHash(codeBase('io/tree-watcher.ts')), 'not a recording rule').to.equal(original);
  });

  it('is the hash of the package own code by default', () => {
    expect(bundlersCodeHash()).to.equal(bundlersCodeHash(path.join(PROJECT_DIR, 'src')));
  });
});

describe('joinedPagesCodeHash', () => {
  // A saved joined page (README "The build cache") is planned by the development extension: one
  // joined by another plan for the same modules must not be served as current.
  it('changes with the development extension, not with the bundlers or the reader', () => {
    const original = joinedPagesCodeHash(codeBase());
    expect(joinedPagesCodeHash(codeBase()), 'the same code').to.equal(original);
    expect(joinedPagesCodeHash(codeBase('development/bundled-preview.ts'))).to.not.equal(original);
    expect(joinedPagesCodeHash(codeBase('bundlers/esbuild.ts')), 'the bundlers have their own part of the identity').to.equal(original);
  });

  it('is the hash of the package own code by default', () => {
    expect(joinedPagesCodeHash()).to.equal(joinedPagesCodeHash(path.join(PROJECT_DIR, 'src')));
  });
});
