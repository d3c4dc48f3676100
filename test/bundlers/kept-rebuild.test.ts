// A module variant rebuilt in its kept esbuild context (src/bundlers/kept-rebuild.ts): without the
// CSS module scripts plugin, so a plain stylesheet import costs no call into JavaScript per
// rebuild, until the module imports a CSS module script; every result is what a build with the
// plugin gives.
import { expect } from 'chai';
import * as esbuildApi from 'esbuild';
import { collect, isBuildFailure } from '../../src/bundlers/build-results.js';
import { createContextPool } from '../../src/bundlers/context-pool.js';
import { esbuildOptions } from '../../src/bundlers/esbuild-options.js';
import { createKeptRebuilds } from '../../src/bundlers/kept-rebuild.js';
import { CSS_MODULE_SCRIPT_REFUSED } from '../../src/bundlers/plugins/css-module-scripts.js';
import type { BundleTarget } from '../../src/bundlers/types.js';
import { developmentVariant } from '../../src/workspace/variant.js';
import { countingCssModuleScripts } from '../helpers/counting-options.js';
import { write as writeTo } from '../helpers/edit.js';
import { tempWorkspace } from '../helpers/workspace.js';

const variant = developmentVariant('browser');
const CARD: BundleTarget = { specifier: '@t/app/card', subpath: 'card', dir: 'app/card', entry: 'app/card/index.ts', assets: ['card.css'], platforms: ['web'] };
const KEY = 'card';
const text = (bytes: Uint8Array | null) => (bytes ? Buffer.from(bytes).toString('utf8') : null);

describe('createKeptRebuilds', () => {
  let root: string;
  let contexts: ReturnType<typeof createContextPool>;
  const write = (relative: string, content: string) => writeTo(root, relative, content);

  const counted = { count: 0 };
  const countingOptions = countingCssModuleScripts(() => root, variant, counted);
  const rebuild = () => createdKept.rebuild(KEY, 'signature', CARD, variant);
  let createdKept: ReturnType<typeof createKeptRebuilds>;
  /** What one build with every plugin gives, as the engine collects it. */
  const withEveryPlugin = async () => collect(root, CARD, 0, await esbuildApi.build(esbuildOptions(root, [CARD], variant)));
  const failureOf = async (build: Promise<unknown>) => {
    try {
      await build;
    } catch (error) {
      if (isBuildFailure(error)) return error.errors;
      throw error;
    }
    throw new Error('the rebuild did not fail');
  };

  beforeEach(() => {
    root = tempWorkspace({
      'app/card/index.ts': "import './plain.css';\nimport { helper } from './helper.ts';\nexport const value = helper();\n",
      'app/card/helper.ts': 'export const helper = () => 1;\n',
      'app/card/plain.css': '.plain { color: red; }\n',
      'app/card/card.css': ':host { display: block; }\n',
      'app/card/other.css': '.other {}\n',
    });
    contexts = createContextPool();
    createdKept = createKeptRebuilds(contexts, countingOptions);
    counted.count = 0;
  });
  afterEach(() => contexts.dispose());

  it('rebuilds plain stylesheet imports without a call into JavaScript each, to the bytes a build with the plugin gives', async () => {
    await rebuild();
    write('app/card/helper.ts', 'export const helper = () => 2;\n');
    const result = collect(root, CARD, 0, await rebuild());
    // A failure of another kind keeps the context as it is.
    write('app/card/helper.ts', 'export const helper = () => ;\n');
    expect((await failureOf(rebuild())).map((error) => error.text)).to.deep.equal(['Unexpected ";"']);
    expect(counted.count, 'calls of the CSS module scripts plugin').to.equal(0);
    write('app/card/helper.ts', 'export const helper = () => 2;\n');
    const expected = await withEveryPlugin();
    expect([text(result.code), text(result.styles), result.inputs]).to.deep.equal([text(expected.code), text(expected.styles), expected.inputs]);
    expect(text(result.code)).to.include('() => 2');
  });

  it('rebuilds with the plugin once the module imports a CSS module script, declared or not, and keeps it', async () => {
    await rebuild();
    write('app/card/index.ts', "import './plain.css';\nimport sheet from './card.css' with { type: 'css' };\nexport const sheets = [sheet];\n");
    const declared = collect(root, CARD, 0, await rebuild());
    expect(counted.count).to.be.greaterThan(0);
    expect(text(declared.code)).to.match(/from "\.\.\/assets\/card\/card\.css" with \{ type: "css" \}/);
    expect(text(declared.code)).to.equal(text((await withEveryPlugin()).code));
    write('app/card/index.ts', "import sheet from './other.css' with { type: 'css' };\nexport const sheets = [sheet];\n");
    expect((await failureOf(rebuild())).map((error) => error.detail)).to.deep.equal([CSS_MODULE_SCRIPT_REFUSED]);
    // Kept: a plain import again is rebuilt in the context with the plugin, which it calls.
    write('app/card/index.ts', "import './plain.css';\n");
    const before = counted.count;
    await rebuild();
    expect(counted.count, 'the plugin kept after the module imported a CSS module script').to.be.greaterThan(before);
    // A bare one stays external without the plugin: the metafile tells, in a context that never had it.
    createdKept.clear();
    await contexts.dispose();
    write('app/card/index.ts', "import './plain.css';\n");
    await rebuild();
    write('app/card/index.ts', "import theme from '@t/kit/theme.css' with { type: 'css' };\nexport const sheets = [theme];\n");
    expect((await failureOf(rebuild())).map((error) => error.detail)).to.deep.equal([CSS_MODULE_SCRIPT_REFUSED]);
  });

  describe('a refusal told by where it is, not by its wording', () => {
    /** A pool whose context without the plugin fails with `messages`; the one with it answers. */
    const failingWithout = (messages: Partial<esbuildApi.Message>[]) => {
      const signatures: string[] = [];
      const answered = { errors: [], warnings: [] } as unknown as esbuildApi.BuildResult;
      const pool = {
        rebuild: async (_key: string, signature: string) => {
          signatures.push(signature);
          if (signature === 'signature') throw Object.assign(new Error('Build failed'), { errors: messages, warnings: [] });
          return answered;
        },
        dispose: async () => {},
        abandon: () => {},
        discard: async () => {},
      };
      return { kept: createKeptRebuilds(pool, countingOptions), signatures, answered };
    };
    const located = (lineText: string) => ({ file: 'app/card/index.ts', namespace: 'file', line: 1, column: 0, length: 5, lineText, suggestion: '' });

    it("builds again with the plugin when an error is located at a `type: 'css'` attribute, whatever esbuild's message says", async () => {
      for (const lineText of ["import sheet from './card.css' with { type: 'css' };", '  "type": "css"']) {
        const { kept, signatures, answered } = failingWithout([{ text: 'a wording of another esbuild version', location: located(lineText), notes: [], id: '', pluginName: '', detail: undefined }]);
        expect(await kept.rebuild(KEY, 'signature', CARD, variant), lineText).to.equal(answered);
        expect(signatures).to.have.length(2);
        expect(signatures[1]).to.contain('signature\0');
      }
    });

    it('throws any other failure as it is, without a build with the plugin', async () => {
      const { kept, signatures } = failingWithout([{ text: 'Unexpected ";"', location: located('export const helper = () => ;'), notes: [], id: '', pluginName: '', detail: undefined }]);
      expect((await failureOf(kept.rebuild(KEY, 'signature', CARD, variant))).map((error) => error.text)).to.deep.equal(['Unexpected ";"']);
      expect(signatures).to.deep.equal(['signature']);
    });
  });
});
