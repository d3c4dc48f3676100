// A failed build's fact (src/io/build-facts.ts): an error placed by a read of its file after the
// build (a stylesheet imported for a value: esbuild says which file, not where) keeps its line
// only where that read hashed as the build's read of the file did (README "Code frames").
import { expect } from 'chai';
import type { BundleResult } from '../../src/bundlers/types.js';
import { createBuildFacts } from '../../src/io/build-facts.js';
import { createFileHashes } from '../../src/io/file-hashes.js';
import { createImportLocator } from '../../src/io/import-locations.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { createOutputCache } from '../../src/outputs/output-cache.js';
import { diagnostic } from '../../src/workspace/diagnostics.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('createBuildFacts: an error placed after the build', () => {
  const SOURCE = "import sheet from './a.css';\nexport const value = sheet;\n";

  /** The fact of a failed build that read `app/a.ts` as it is on disk, its error placed in text hashing to `placedIn`. */
  function factOf(placedIn: string) {
    const root = tempWorkspace({ 'app/a.ts': SOURCE, 'app/a.css': '.a {}\n' });
    const hashes = createFileHashes(root);
    const toFact = createBuildFacts(hashes, createOutputCache(), createImportLocator(hashes));
    const result: BundleResult = {
      specifier: '@t/app/a',
      code: null,
      styles: null,
      inputs: ['app/a.css', 'app/a.ts'],
      imports: [],
      errors: [diagnostic('STYLESHEET_IMPORTED_AS_VALUE', '"./a.css" is imported for a value', { file: 'app/a.ts', line: 1, column: 1 })],
      placedFrom: { 'app/a.ts': contentHash(placedIn) },
    };
    const fact = toFact(result, { build: 1, variant: 'browser.development', previousInputs: null, before: new Map(), startedAt: 0 });
    if (fact.type !== 'build.failed') throw new Error(`expected build.failed, got ${fact.type}`);
    return fact;
  }

  it('keeps its line and column when the text it was placed in is the one the build read', () => {
    expect(factOf(SOURCE).errors).to.deep.equal([{ kind: 'STYLESHEET_IMPORTED_AS_VALUE', message: '"./a.css" is imported for a value', file: 'app/a.ts', line: 1, column: 1 }]);
  });

  it('names the file without a line when the file was saved between the build and that read', () => {
    const [error] = factOf(`// a line added\n${SOURCE}`).errors;
    expect(error).to.deep.equal({ kind: 'STYLESHEET_IMPORTED_AS_VALUE', message: '"./a.css" is imported for a value', file: 'app/a.ts' });
  });
});

describe('createBuildFacts: a warning placed after the build', () => {
  const SOURCE = 'export function url() {\n  return process.env.API_URL;\n}\n';

  /** The warnings of a build that succeeded, read `app/a.ts` as it is on disk, its warning placed in text hashing to `placedIn`. */
  function warningsOf(placedIn: string) {
    const root = tempWorkspace({ 'app/a.ts': SOURCE });
    const hashes = createFileHashes(root);
    const toFact = createBuildFacts(hashes, createOutputCache(), createImportLocator(hashes));
    const result: BundleResult = {
      specifier: '@t/app/a',
      code: new TextEncoder().encode('function url() { return process.env.API_URL; }\nexport { url };\n'),
      styles: null,
      inputs: ['app/a.ts'],
      imports: [],
      errors: [],
      warnings: [diagnostic('BUNDLE_WARNING', 'process.env.API_URL is read inside a function', { file: 'app/a.ts', line: 2, column: 10 })],
      placedFrom: { 'app/a.ts': contentHash(placedIn) },
    };
    const fact = toFact(result, { build: 1, variant: 'browser.development', previousInputs: null, before: new Map(), startedAt: 0 });
    if (fact.type !== 'build.succeeded') throw new Error(`expected build.succeeded, got ${fact.type}`);
    return fact.warnings;
  }

  it('keeps its line and column when the text it was placed in is the one the build read', () => {
    expect(warningsOf(SOURCE)).to.deep.equal([{ kind: 'BUNDLE_WARNING', message: 'process.env.API_URL is read inside a function', file: 'app/a.ts', line: 2, column: 10 }]);
  });

  it('names the file without a line when the file was saved between the build and that read', () => {
    expect(warningsOf(`// a line added\n${SOURCE}`)).to.deep.equal([{ kind: 'BUNDLE_WARNING', message: 'process.env.API_URL is read inside a function', file: 'app/a.ts' }]);
  });
});
