// The hashes of the service's own code (src/code-hash.ts): the workspace reader's covers the io/
// rules a model's sources are listed and checked by, so a service whose listing rules changed
// takes no model (the team's, the build cache's) read under the old ones.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { bundlersCodeHash, joinedPagesCodeHash, workspaceReaderCodeHash, writeCodeHashes } from '../src/code-hash.js';
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

  // probe56: a build restored its old warning text after the module that words it (outside
  // bundlers/) changed, and the selectors, which read that text back, then judged it by new rules.
  it('changes with every module the bundlers import, however deep, and not with one they do not', () => {
    const importing = (changed?: string) => {
      const base = codeBase();
      fs.writeFileSync(path.join(base, 'bundlers/esbuild.ts'), "import { diagnostic } from '../workspace/diagnostics.js';\nexport const bundle = diagnostic;\n");
      fs.writeFileSync(path.join(base, 'workspace/diagnostics.ts'), "export { CODES as diagnostic } from '../codes.js';\n");
      fs.writeFileSync(path.join(base, 'codes.ts'), 'export const CODES = 1;\n');
      if (changed) fs.appendFileSync(path.join(base, changed), '// changed\n');
      return base;
    };
    const original = bundlersCodeHash(importing());
    expect(bundlersCodeHash(importing()), 'the same code').to.equal(original);
    expect(bundlersCodeHash(importing('workspace/diagnostics.ts')), 'imported by a bundler').to.not.equal(original);
    expect(bundlersCodeHash(importing('codes.ts')), 'imported through it').to.not.equal(original);
    expect(bundlersCodeHash(importing('workspace/read-workspace.ts')), 'imported by none').to.equal(original);
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

describe('writeCodeHashes', () => {
  /** `writeCodeHashes`, as a build that looked at the files a minute after they were written (past any clock tick). */
  function built(base: string): Record<string, { digest: string; at: number }> {
    writeCodeHashes(base);
    const file = path.join(base, 'code-hashes.json');
    const written = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, { digest: string; at: number }>;
    for (const entry of Object.values(written)) entry.at += 60_000;
    fs.writeFileSync(file, JSON.stringify(written));
    return written;
  }

  // The build writes the hashes with what they covered; a start takes them only while every file
  // covered has the size and time it had, so compiled code changed since is hashed again.
  it('gives the hashes a start then takes while the code holds, and none once a file covered moved', () => {
    const expected = { bundlers: bundlersCodeHash(codeBase()), reader: workspaceReaderCodeHash(codeBase()), pages: joinedPagesCodeHash(codeBase()) };
    const held = codeBase();
    const written = built(held);
    expect(Object.values(written).map((entry) => entry.digest).sort()).to.deep.equal(Object.values(expected).sort());
    // Taken as written: a digest changed in the file is what the start gives.
    for (const entry of Object.values(written)) entry.digest = `written ${entry.digest}`;
    fs.writeFileSync(path.join(held, 'code-hashes.json'), JSON.stringify(written));
    expect(bundlersCodeHash(held)).to.equal(`written ${expected.bundlers}`);

    const moved = codeBase();
    built(moved);
    fs.appendFileSync(path.join(moved, 'bundlers/esbuild.ts'), '// changed\n');
    expect(bundlersCodeHash(moved)).to.equal(bundlersCodeHash(codeBase('bundlers/esbuild.ts')));
    fs.writeFileSync(path.join(moved, 'development/new-plan.ts'), 'export const plan = 2;\n');
    expect(joinedPagesCodeHash(moved), 'a file added to a folder covered').to.not.equal(expected.pages);
  });

  it('takes no hash whose files the build looked at within a clock tick of their change', () => {
    const racy = codeBase();
    writeCodeHashes(racy);
    const file = path.join(racy, 'code-hashes.json');
    const written = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, { digest: string }>;
    for (const entry of Object.values(written)) entry.digest = `written ${entry.digest}`;
    fs.writeFileSync(file, JSON.stringify(written));
    expect(bundlersCodeHash(racy)).to.equal(bundlersCodeHash(codeBase()));
  });
});
