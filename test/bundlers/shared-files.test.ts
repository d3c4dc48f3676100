// The esbuild engine and shared files (README "Shared files"): modules of one package that reach
// the same file import it by its internal specifier, each such file built alone; a package with
// no such file gets the bytes it always got.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { contentHash } from '../../src/outputs/content-hash.js';
import * as esbuild from 'esbuild';
import { collect, sharedInBatch } from '../../src/bundlers/build-results.js';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import { esbuildOptions } from '../../src/bundlers/esbuild-options.js';
import type { BundleTarget } from '../../src/bundlers/types.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { tempWorkspace } from '../helpers/workspace.js';

const text = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : null);

const files = {
  'lib/registry.ts': "import { log } from './log.ts';\nexport const registry = new Map<string, unknown>();\nlog(registry);\n",
  'lib/log.ts': 'export const log = (value: unknown) => value;\n',
  'lib/define.ts': "import { registry } from './registry.ts';\nexport const define = (name: string, value: unknown) => registry.set(name, value);\n",
  'lib/lookup.ts': "import { registry } from './registry';\nexport const lookup = (name: string) => registry.get(name);\n",
  'lib/alone.ts': "import { log } from './log.ts';\nexport const alone = log(1);\n",
  'lib/styled.ts': "import './styled.css';\nimport { registry } from './registry.ts';\nexport const styled = registry;\n",
  'lib/styled.css': '.styled { color: rgb(1, 2, 3); }\n',
  'other/one.ts': "import { helper } from './helper.ts';\nexport const one = helper(1);\n",
  'other/two.ts': 'export const two = 2;\n',
  'other/helper.ts': 'export const helper = (n: number) => n + 1;\n',
};

const target = (pkg: string, dir: string, name: string, shared?: Record<string, string>): BundleTarget => ({
  specifier: `${pkg}/${name}`,
  subpath: name,
  dir,
  entry: `${dir}/${name}.ts`,
  assets: [],
  platforms: ['web'],
  package: { name: pkg, dir },
  ...(shared ? { shared } : {}),
});

describe('the esbuild engine with shared files', () => {
  let root: string;
  let engine: ReturnType<typeof createEsbuildEngine>;
  beforeEach(() => {
    root = tempWorkspace(files);
    engine = createEsbuildEngine({ root });
  });
  afterEach(() => engine.dispose());

  it('finds the files modules of one batch share, imports them, and builds each alone as a chunk of each', async () => {
    const [define, lookup, alone] = await engine.bundle([target('@r/lib', 'lib', 'define'), target('@r/lib', 'lib', 'lookup'), target('@r/lib', 'lib', 'alone')], developmentVariant('browser'));
    for (const result of [define!, lookup!]) {
      expect(text(result.code)).to.include('from "@r/lib/.shared/registry.ts"').and.not.include('new Map');
      expect(Object.keys(result.chunks ?? {}).sort()).to.deep.equal(['@r/lib/.shared/log.ts', '@r/lib/.shared/registry.ts']);
      expect(text(result.chunks!['@r/lib/.shared/registry.ts'])).to.include('new Map').and.include('from "@r/lib/.shared/log.ts"');
      expect(result.inputs).to.include.members(['lib/registry.ts', 'lib/log.ts']);
      // The internal specifiers are no imports of other modules: nothing for the import checks.
      expect(result.imports).to.deep.equal([]);
    }
    expect(text(alone!.code)).to.include('from "@r/lib/.shared/log.ts"');
    expect(text(define!.chunks!['@r/lib/.shared/registry.ts'])).to.equal(text(lookup!.chunks!['@r/lib/.shared/registry.ts']));
  });

  it('never takes a path esbuild tried before the file it found (an input, absent) for a file the modules share', async () => {
    const root = tempWorkspace({
      'kit/one.ts': "import { util } from './util';\nexport const one = util(1);\n",
      'kit/two.ts': "import { util } from './util';\nexport const two = util(2);\n",
      'kit/util.ts': 'export const util = (n: number) => n;\n',
    });
    const targets = [target('@r/kit', 'kit', 'one'), target('@r/kit', 'kit', 'two')];
    const built = await esbuild.build(esbuildOptions(root, targets, developmentVariant('browser')));
    const results = targets.map((each, index) => collect(root, each, index, built));
    // Inputs, so that a util.tsx made there builds them again (README "Bundling real code").
    for (const result of results) expect(result.inputs).to.include.members(['kit/util', 'kit/util.tsx', 'kit/util.ts']);
    expect(sharedInBatch(targets, results)).to.deep.equal(new Map([['@r/kit', { 'kit/util.ts': '@r/kit/.shared/util.ts' }]]));
    // Built by the engine, util.ts is then imported as a shared file (kept external): the paths tried before it are still inputs.
    const engine = createEsbuildEngine({ root });
    try {
      const shared = await engine.bundle(targets, developmentVariant('browser'));
      for (const result of shared) {
        expect(text(result.code)).to.include('from "@r/kit/.shared/util.ts"');
        expect(result.inputs).to.include.members(['kit/util', 'kit/util.tsx', 'kit/util.ts']);
      }
    } finally {
      await engine.dispose();
    }
  });

  it('imports the shared files the service names on a rebuild, and fails a module with the errors of one that does not build', async () => {
    const shared = { 'lib/registry.ts': '@r/lib/.shared/registry.ts' };
    const lookup = await engine.rebuild(target('@r/lib', 'lib', 'lookup', shared), productionVariant('browser'));
    expect(text(lookup.code)).to.include('"@r/lib/.shared/registry.ts"').and.not.include('new Map');
    expect(text(lookup.chunks?.['@r/lib/.shared/registry.ts'])).to.include('new Map');
    const broken = tempWorkspace({ ...files, 'lib/registry.ts': 'export const registry = new Map(;\n' });
    const other = createEsbuildEngine({ root: broken });
    try {
      const failed = await other.rebuild(target('@r/lib', 'lib', 'lookup', shared), developmentVariant('browser'));
      expect(failed.code).to.equal(null);
      expect(failed.errors.map((error) => error.file)).to.deep.equal(['lib/registry.ts']);
    } finally {
      await other.dispose();
    }
  });

  it('rebuilds a change of stylesheets alone in a module that imports a shared file, keeping its code and the shared file', async () => {
    const shared = { 'lib/registry.ts': '@r/lib/.shared/registry.ts', 'lib/log.ts': '@r/lib/.shared/log.ts' };
    const styled = target('@r/lib', 'lib', 'styled', shared);
    const first = await engine.rebuild(styled, developmentVariant('browser'));
    fs.writeFileSync(path.join(root, 'lib/styled.css'), '.styled { color: rgb(4, 5, 6); }\n');
    const next = await engine.rebuild(styled, developmentVariant('browser'), undefined, { inputs: first.inputs, changed: ['lib/styled.css'], code: contentHash(first.code!) });
    expect(next.code, 'the code was not built again').to.equal(first.code);
    expect(next.chunks?.['@r/lib/.shared/registry.ts']).to.equal(first.chunks?.['@r/lib/.shared/registry.ts']);
    expect(text(next.styles)).to.include('rgb(4, 5, 6)');
    expect(next.inputs).to.deep.equal(first.inputs);
  });

  it('bundles a CommonJS file the modules share, as before: built alone it would export only its default', async () => {
    const cjs = tempWorkspace({
      'lib/count.js': 'let count = 0;\nexports.next = () => ++count;\n',
      'lib/one.ts': "import { next } from './count.js';\nexport const one = next();\n",
      'lib/two.ts': "import { next } from './count.js';\nexport const two = next();\n",
    });
    const other = createEsbuildEngine({ root: cjs });
    try {
      const results = await other.bundle([target('@c/lib', 'lib', 'one'), target('@c/lib', 'lib', 'two')], developmentVariant('browser'));
      for (const result of results) {
        expect(result.chunks).to.equal(undefined);
        expect(text(result.code)).to.include('count').and.not.include('.shared');
      }
    } finally {
      await other.dispose();
    }
  });

  it('gives a package with no shared file the bytes one esbuild build of its modules gives', async () => {
    const targets = [target('@o/other', 'other', 'one'), target('@o/other', 'other', 'two')];
    const results = await engine.bundle(targets, productionVariant('browser'));
    const plain = await esbuild.build(esbuildOptions(root, targets, productionVariant('browser')));
    targets.forEach((_, index) => {
      expect(results[index]!.chunks).to.equal(undefined);
      expect(text(results[index]!.code)).to.equal(text(plain.outputFiles!.find((file) => file.path.endsWith(`__core_${index}.js`))!.contents));
    });
  });
});
