// The stylesheet rebuilt alone (src/bundlers/stylesheet-rebuild.ts): a saved sheet the watcher
// has read is transformed at once (`anticipate`), and the rebuild that follows takes that
// transform only when it is given the very bytes it was started on.
import { expect } from 'chai';
import * as esbuild from 'esbuild';
import { createContextPool } from '../../src/bundlers/context-pool.js';
import { createBatchBuilds } from '../../src/bundlers/esbuild-batch.js';
import { esbuildOptions } from '../../src/bundlers/esbuild-options.js';
import { createStylesheetRebuild, type LastBuild } from '../../src/bundlers/stylesheet-rebuild.js';
import type { BundleTarget } from '../../src/bundlers/types.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { esbuildHolds } from '../helpers/esbuild-holds.js';
import { tempWorkspace } from '../helpers/workspace.js';

const SHEET = 'app/plain/plain.css';
const KEY = '@t/app/plain\0browser';
const VARIANT = developmentVariant('browser');
const TARGET: BundleTarget = { specifier: '@t/app/plain', subpath: 'plain', dir: 'app/plain', entry: 'app/plain/index.ts', assets: [], platforms: ['web'] };
const text = (bytes: Uint8Array | null) => (bytes ? Buffer.from(bytes).toString('utf8') : null);
const bytes = (css: string) => Buffer.from(css);

describe('createStylesheetRebuild', () => {
  let root: string;
  let transforms: Uint8Array[];
  let failNext: boolean;

  beforeEach(() => {
    root = tempWorkspace({ 'app/plain/index.ts': "import './plain.css';\nexport const plain = 1;\n", [SHEET]: '.plain { color: rgb(1, 1, 1); }\n' });
    transforms = [];
    failNext = false;
  });

  /** A rebuild whose esbuild `transform` calls are counted (`failNext`: the next one throws). */
  function rebuilder() {
    const buildOptions = (targets: BundleTarget[], variant = VARIANT) => esbuildOptions(root, targets, variant);
    const contexts = createContextPool();
    const lastBuilds = new Map<string, LastBuild>();
    const transform = (async (input: string | Uint8Array, options?: esbuild.TransformOptions) => {
      transforms.push(typeof input === 'string' ? bytes(input) : input);
      if (failNext) {
        failNext = false;
        throw new Error('The service is no longer running');
      }
      return esbuild.transform(input, options);
    }) as typeof esbuild.transform;
    const stylesheets = createStylesheetRebuild({ root, contexts, lastBuilds, buildOptions, failedBuild: createBatchBuilds(root, buildOptions).failedBuild, transform });
    // The module's last build as the engine keeps it: its code stands, its one sheet imports nothing.
    const last: LastBuild = {
      result: { specifier: TARGET.specifier, code: bytes('export const plain = 1;\n'), styles: null, inputs: ['app/plain/index.ts', SHEET], imports: [], errors: [] },
      codeHash: 'code',
      stylesheet: SHEET,
      stylesheetAlone: true,
      codeInputs: ['app/plain/index.ts'],
      codeWarnings: [],
      stylesInputs: new Set([SHEET]),
    };
    const rebuild = (given: Uint8Array, variant = VARIANT) => stylesheets.rebuild(KEY, 'signature', TARGET, variant, last, undefined, given);
    return { stylesheets, rebuild, last, dispose: () => contexts.dispose() };
  }

  it('transforms a saved sheet last built alone as soon as it is told, and the rebuild given those bytes takes that transform', async () => {
    const { stylesheets, rebuild, dispose } = rebuilder();
    try {
      await rebuild(bytes('.plain { color: rgb(2, 2, 2); }\n'));
      expect(transforms).to.have.length(1);
      const saved = bytes('.plain { color: rgb(3, 3, 3); }\n');
      stylesheets.anticipate([SHEET, 'app/plain/index.ts'], (file) => (file === SHEET ? saved : undefined));
      expect(transforms.map(text), 'started at once, for the sheet alone').to.deep.equal(['.plain { color: rgb(2, 2, 2); }\n', '.plain { color: rgb(3, 3, 3); }\n']);
      const early = await rebuild(Buffer.from(saved));
      expect(transforms, 'no second transform').to.have.length(2);
      // The bytes a transform made when the rebuild asked would have made.
      const { rebuild: fresh, dispose: disposeFresh } = rebuilder();
      try {
        expect(text(early.styles)).to.equal(text((await fresh(saved)).styles)).and.to.contain('rgb(3, 3, 3)').and.to.contain(`/* ${SHEET} */`);
      } finally {
        await disposeFresh();
      }
    } finally {
      await dispose();
    }
  });

  // An early transform nobody took ran on past the bundler's dispose, holding esbuild's process.
  it('is idle once every early transform has ended, one told of twice included', async () => {
    const { stylesheets, rebuild, dispose } = rebuilder();
    try {
      await rebuild(bytes('.plain { color: rgb(2, 2, 2); }\n'));
      const held = esbuildHolds();
      stylesheets.anticipate([SHEET], () => bytes('.plain { color: rgb(3, 3, 3); }\n'));
      stylesheets.anticipate([SHEET], () => bytes('.plain { color: rgb(4, 4, 4); }\n'));
      expect(transforms).to.have.length(3);
      await stylesheets.idle();
      expect(esbuildHolds(), "esbuild's process held once idle").to.equal(held);
    } finally {
      await dispose();
    }
  });

  it('transforms again when the rebuild is given other bytes than those it was told of, or the early transform threw', async () => {
    const { stylesheets, rebuild, dispose } = rebuilder();
    try {
      await rebuild(bytes('.plain { color: rgb(2, 2, 2); }\n'));
      stylesheets.anticipate([SHEET], () => bytes('.plain { color: rgb(3, 3, 3); }\n'));
      // Written again after the watcher read it: the build is given what the service hashed last.
      const later = await rebuild(bytes('.plain { color: rgb(4, 4, 4); }\n'));
      expect(transforms).to.have.length(3);
      expect(text(later.styles)).to.contain('rgb(4, 4, 4)').and.not.to.contain('rgb(3, 3, 3)');
      failNext = true;
      stylesheets.anticipate([SHEET], () => bytes('.plain { color: rgb(5, 5, 5); }\n'));
      const retried = await rebuild(bytes('.plain { color: rgb(5, 5, 5); }\n'));
      expect(transforms).to.have.length(5);
      expect(text(retried.styles)).to.contain('rgb(5, 5, 5)');
    } finally {
      await dispose();
    }
  });

  it('transforms again for a rebuild of other options than the early one, or after the early ones were cleared', async () => {
    const { stylesheets, rebuild, dispose } = rebuilder();
    try {
      await rebuild(bytes('.plain { color: rgb(2, 2, 2); }\n'));
      const saved = bytes('.plain { color: rgb(3, 3, 3); }\n');
      stylesheets.anticipate([SHEET], () => saved);
      expect(transforms).to.have.length(2);
      const production = await rebuild(Buffer.from(saved), productionVariant('browser'));
      expect(transforms, 'the production variant transformed for itself').to.have.length(3);
      expect(text(production.styles)).to.not.contain(`/* ${SHEET} */`);
      stylesheets.anticipate([SHEET], () => saved);
      expect(transforms).to.have.length(4);
      stylesheets.clear();
      await rebuild(Buffer.from(saved), productionVariant('browser'));
      expect(transforms, 'cleared: transformed again').to.have.length(5);
    } finally {
      await dispose();
    }
  });

  it('starts nothing for a sheet it never built alone, nor for one built with its module since, nor reads its bytes', async () => {
    const { stylesheets, rebuild, last, dispose } = rebuilder();
    try {
      const asked: string[] = [];
      const anticipate = () =>
        stylesheets.anticipate([SHEET], (file) => {
          asked.push(file);
          return bytes('.plain { color: rgb(3, 3, 3); }\n');
        });
      anticipate();
      expect([asked, transforms]).to.deep.equal([[], []]);
      // Built alone once, then with its module (it imports something now): no longer one to transform early.
      await rebuild(bytes('.plain { color: rgb(2, 2, 2); }\n'));
      last.stylesheetAlone = false;
      await rebuild(bytes('.plain { color: rgb(2, 2, 2); }\n'));
      anticipate();
      expect(asked).to.deep.equal([]);
      expect(transforms).to.have.length(1);
    } finally {
      await dispose();
    }
  });
});
