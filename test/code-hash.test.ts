// The hashes of the service's own code (src/code-hash.ts): the workspace reader's covers the io/
// rules a model's sources are listed and checked by, so a service whose listing rules changed
// takes no model (the team's, the build cache's) read under the old ones.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { workspaceReaderCodeHash } from '../src/code-hash.js';
import { PROJECT_DIR, tempWorkspace } from './helpers/workspace.js';

const LISTING_RULES = ['io/file-reads', 'io/file-hashes', 'io/confined-paths', 'io/read-ahead', 'io/read-links', 'io/workspace-reads'];

/** A code base as src/ holds it, with `changed` edited: a new directory each (the hashes are computed once per base). */
function codeBase(changed?: string): string {
  const files: Record<string, string> = { 'workspace/read-workspace.ts': 'export const read = 1;\n', 'io/tree-watcher.ts': 'export const watch = 1;\n' };
  for (const module of LISTING_RULES) files[`${module}.ts`] = `export const rule = ${JSON.stringify(module)};\n`;
  const base = tempWorkspace(files);
  if (changed) fs.appendFileSync(path.join(base, changed), '// changed\n');
  return base;
}

describe('workspaceReaderCodeHash', () => {
  it("changes with the workspace reader's code and with each io/ module of the listing rules, not with another of io/", () => {
    const original = workspaceReaderCodeHash(codeBase());
    expect(workspaceReaderCodeHash(codeBase()), 'the same code').to.equal(original);
    expect(workspaceReaderCodeHash(codeBase('workspace/read-workspace.ts'))).to.not.equal(original);
    for (const module of LISTING_RULES) expect(workspaceReaderCodeHash(codeBase(`${module}.ts`)), module).to.not.equal(original);
    expect(workspaceReaderCodeHash(codeBase('io/tree-watcher.ts')), 'not a listing rule').to.equal(original);
  });

  it('is the hash of the package own code by default', () => {
    expect(workspaceReaderCodeHash()).to.equal(workspaceReaderCodeHash(path.join(PROJECT_DIR, 'src')));
  });
});
