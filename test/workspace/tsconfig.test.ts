// tsconfig files read along their `extends` chain (src/workspace/tsconfig.ts), over an injected reader.
import { expect } from 'chai';
import { MAX_MANIFEST_DEPTH } from '../../src/workspace/json.js';
import { loadTsconfig, packageJsonPlaces, tsconfigPlaces } from '../../src/workspace/tsconfig.js';

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

describe('loadTsconfig reading JSONC', () => {
  const load = (text: string) => loadTsconfig('tsconfig.json', { read: (file) => (file === 'tsconfig.json' ? text : null), resolvePackage: () => null });

  it('takes comments and trailing commas, as tsc does', () => {
    const loaded = load('// the base\n{\n  /* where */ "compilerOptions": { "outDir": "dist", "strict": true, },\n  "files": ["a.ts",],\n}\n');
    expect(loaded.diagnostics).to.deep.equal([]);
    expect(loaded.compilerOptions).to.include({ outDir: 'dist', strict: true });
  });

  it('keeps a "__proto__" key a member, never the prototype of the options', () => {
    const loaded = load('{ "compilerOptions": { "__proto__": { "outDir": "elsewhere" } } }');
    expect(loaded.diagnostics).to.deep.equal([]);
    expect(loaded.dirs).to.deep.equal({});
    expect(Object.getPrototypeOf(loaded.compilerOptions)).to.equal(Object.prototype);
    expect(Object.hasOwn(loaded.compilerOptions, '__proto__'), 'an own member').to.equal(true);
  });

  it('refuses broken JSONC with MANIFEST_INVALID at its line and column', () => {
    const loaded = load('{\n  // fine\n  "compilerOptions": { "strict" true }\n}');
    expect(loaded.diagnostics).to.have.length(1);
    expect(loaded.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: 'tsconfig.json', line: 3, column: 33 });
    expect(loaded.diagnostics[0]!.message).to.equal('tsconfig.json is not valid JSON: expected ":"');
  });

  it('refuses a config nested deeper than the stack with MANIFEST_INVALID, without crashing', () => {
    const loaded = load(`{"compilerOptions": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expect(loaded.diagnostics.map((diagnostic) => diagnostic.kind)).to.deep.equal(['MANIFEST_INVALID']);
  });
});

// One rule of places for a module's build and an installed package's bundle (README "Bundling real code", "The local CDN").
describe('the places of a config above a directory', () => {
  it('are the directory and each one above it, nearest first, up to the root or the directory asked', () => {
    expect(tsconfigPlaces('packages/app/src')).to.deep.equal(['packages/app/src/tsconfig.json', 'packages/app/tsconfig.json', 'packages/tsconfig.json', 'tsconfig.json']);
    expect(packageJsonPlaces('packages/app/src')).to.deep.equal(['packages/app/src/package.json', 'packages/app/package.json', 'packages/package.json', 'package.json']);
    expect(packageJsonPlaces('packages/app/src', 'packages/app')).to.deep.equal(['packages/app/src/package.json', 'packages/app/package.json']);
    expect(packageJsonPlaces('.')).to.deep.equal(['package.json']);
  });
});
