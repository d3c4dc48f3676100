// The places found after a build by reading a source again (src/bundlers/placed-reads.ts): an
// `@import` naming no file, Vite's `import.meta.env`. A save between esbuild's read and that read
// must not put the error at a line of bytes the build never saw: the result says which text placed
// it (`placedFrom`), and the build's fact keeps the line only if the build read that text
// (README "Code frames").
import { expect } from 'chai';
import * as esbuildApi from 'esbuild';
import { collect } from '../../src/bundlers/build-results.js';
import { esbuildOptions } from '../../src/bundlers/esbuild-options.js';
import type { BundleResult } from '../../src/bundlers/types.js';
import { createBuildFacts } from '../../src/io/build-facts.js';
import { createFileHashes } from '../../src/io/file-hashes.js';
import { createImportLocator } from '../../src/io/import-locations.js';
import { createOutputCache } from '../../src/outputs/output-cache.js';
import { developmentVariant } from '../../src/workspace/variant.js';
import { write as writeTo } from '../helpers/edit.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

const variant = developmentVariant('browser');
const MAIN = appTarget('main');
const SHEET = 'app/main/main.css';
const ENTRY = 'app/main/index.ts';
const places = (errors: BundleResult['errors']) => errors.map(({ file, line, column }) => ({ file, line, column }));

describe('placed reads: diagnostics placed after the build', () => {
  const cases: { kind: string; file: string; files: Record<string, string>; saved: string; place: { file: string; line: number; column: number } }[] = [
    {
      kind: 'an @import naming no file',
      file: SHEET,
      files: { [ENTRY]: "import './main.css';\nexport const main = 1;\n", [SHEET]: "@import 'missing.css';\n.main { color: rgb(1, 2, 3); }\n" },
      saved: "/* a line added */\n@import 'missing.css';\n.main { color: rgb(1, 2, 3); }\n",
      place: { file: SHEET, line: 1, column: 9 },
    },
    {
      kind: 'a read of import.meta.env',
      file: ENTRY,
      files: { [ENTRY]: 'export const api = import.meta.env.VITE_API;\n' },
      saved: '// a line added\nexport const api = import.meta.env.VITE_API;\n',
      place: { file: ENTRY, line: 1, column: 20 },
    },
  ];

  for (const { kind, file, files, saved, place } of cases) {
    /** The fact of a build of `files`, its result collected after `file` was saved as `savedAs` (or not at all). */
    async function factOf(savedAs?: string) {
      const root = tempWorkspace(files);
      const hashes = createFileHashes(root);
      // What the service takes before a build: each known input's hash, as the build will read it.
      const before = new Map([[file, hashes.recall(file)]]);
      const built = await esbuildApi.build(esbuildOptions(root, [MAIN], variant));
      if (savedAs !== undefined) writeTo(root, file, savedAs);
      const result = collect(root, MAIN, 0, built);
      const toFact = createBuildFacts(hashes, createOutputCache(), createImportLocator(hashes));
      const fact = toFact(result, { build: 1, variant: 'browser.development', previousInputs: { [file]: before.get(file)!.hash! }, before, startedAt: 0 });
      if (fact.type !== 'build.failed') throw new Error(`expected build.failed, got ${fact.type}`);
      return { result, fact };
    }

    it(`keeps the place of ${kind} when the file is as the build read it`, async () => {
      const { fact } = await factOf();
      expect(places(fact.errors)).to.deep.equal([place]);
    });

    it(`names the file of ${kind} without a line when it was saved between the build and the placing read`, async () => {
      const { result, fact } = await factOf(saved);
      // The read after the save found it one line down: that place must not stand.
      expect(places(result.errors)).to.deep.equal([{ ...place, line: 2 }]);
      expect(places(fact.errors)).to.deep.equal([{ file, line: undefined, column: undefined }]);
    });
  }
});
