// tsconfig files read along their `extends` chain (src/workspace/tsconfig.ts), over an injected reader.
import { expect } from 'chai';
import { MAX_MANIFEST_DEPTH } from '../../src/workspace/json.js';
import { loadTsconfig } from '../../src/workspace/tsconfig.js';

/** `length` configs, each extending the next; the last sets `strict`. */
function chain(length: number): Map<string, string> {
  const files = new Map<string, string>();
  for (let index = 0; index < length; index++) {
    files.set(`c${index}.json`, index + 1 < length ? JSON.stringify({ extends: `./c${index + 1}.json` }) : JSON.stringify({ compilerOptions: { strict: true } }));
  }
  return files;
}

describe('loadTsconfig', () => {
  it(`follows an extends chain of ${MAX_MANIFEST_DEPTH} configs`, () => {
    const files = chain(MAX_MANIFEST_DEPTH);
    const loaded = loadTsconfig('c0.json', { read: (file) => files.get(file) ?? null, resolvePackage: () => null });
    expect(loaded.diagnostics).to.deep.equal([]);
    expect(loaded.compilerOptions.strict).to.equal(true);
  });

  it('stops a chain longer than that with MANIFEST_INVALID, never recursing past the stack', () => {
    const files = chain(50_000);
    const loaded = loadTsconfig('c0.json', { read: (file) => files.get(file) ?? null, resolvePackage: () => null });
    expect(loaded.files).to.have.length(MAX_MANIFEST_DEPTH);
    expect(loaded.diagnostics.map((diagnostic) => diagnostic.kind)).to.deep.equal(['MANIFEST_INVALID']);
    expect(loaded.diagnostics[0]!.message).to.include(`more than ${MAX_MANIFEST_DEPTH} configs`);
  });
});
