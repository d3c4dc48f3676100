// A CSS module's local names are unique to its file and the same in every build of it (README
// "Stylesheet modules"): two modules' `a.module.css` with `.btn` both made `.a_btn` when built
// apart (each module is its own build), and `.a_btn2` for one of them when built together.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import * as esbuild from 'esbuild';
import { createEsbuildEngine } from '../../src/bundlers/esbuild-engine.js';
import { localName, renameLocalNames } from '../../src/bundlers/plugins/css-modules.js';
import type { BundleResult } from '../../src/bundlers/types.js';
import { developmentVariant, productionVariant, type Variant } from '../../src/workspace/variant.js';
import { appTarget } from '../helpers/targets.js';
import { tempWorkspace } from '../helpers/workspace.js';

const text = (bytes: Uint8Array | null) => (bytes ? Buffer.from(bytes).toString() : '');
const unminified: Variant = { ...productionVariant('browser'), min: false };

describe('CSS module local names', () => {
  let root: string;
  let engine: ReturnType<typeof createEsbuildEngine>;
  const M1 = appTarget('m1', { assets: ['icon.svg'] });
  const M2 = appTarget('m2');

  beforeEach(() => {
    root = tempWorkspace({
      'app/m1/index.ts': "import s, { btn, spin } from './a.module.css';\nexport const names = [s.btn, btn, spin, s['icon-x']];\n",
      'app/m1/a.module.css': [
        '.btn { color: rgb(255, 0, 0); animation: spin 1s; background: url(icon.svg); }',
        ':global(.page) .btn:hover .icon-x, #mark { content: ".btn"; }',
        '@keyframes spin { from { color: red; } }',
        '',
      ].join('\n'),
      'app/m1/icon.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'app/m2/index.ts': "import s from './a.module.css';\nexport const names = [s.btn];\n",
      'app/m2/a.module.css': '.btn { color: rgb(0, 0, 255); }\n',
    });
    engine = createEsbuildEngine({ root });
  });
  afterEach(() => engine.dispose());

  const m1Btn = () => localName('app/m1/a.module.css', 'btn');
  const m2Btn = () => localName('app/m2/a.module.css', 'btn');

  it('are named from the file, unique to it: <stem>_<name>_<hash of its workspace path>', () => {
    expect(m1Btn()).to.match(/^a_btn_[0-9a-f]{8}$/);
    expect(m1Btn()).not.to.equal(m2Btn());
  });

  for (const variant of [developmentVariant('browser'), unminified, productionVariant('browser')]) {
    const shown = `${variant.env}${variant.min ? ', min' : ''}`;
    it(`are the same, byte for byte, built together, built alone and built again (${shown})`, async () => {
      const together = await engine.bundle([M1, M2], variant);
      const m1Alone = await engine.bundle([M1], variant);
      const m2Alone = await engine.bundle([M2], variant);
      const m2First = await engine.bundle([M2, M1], variant);
      for (const result of [...together, ...m1Alone, ...m2Alone]) expect(result.errors, result.specifier).to.deep.equal([]);
      const bytes = (result: BundleResult) => [text(result.code), text(result.styles)];
      expect(bytes(together[0]!)).to.deep.equal(bytes(m1Alone[0]!));
      expect(bytes(together[1]!)).to.deep.equal(bytes(m2Alone[0]!));
      expect(bytes(m2First[0]!)).to.deep.equal(bytes(m2Alone[0]!));
      expect(bytes(m2First[1]!)).to.deep.equal(bytes(m1Alone[0]!));
      // Each module's code and sheet hold its own names, and the other's never.
      const [m1, m2] = together;
      expect(text(m1!.styles)).to.include(`.${m1Btn()}`).and.not.to.include(m2Btn());
      expect(text(m2!.styles)).to.include(`.${m2Btn()}`).and.not.to.include(m1Btn());
      expect(text(m1!.code)).to.include(`"${m1Btn()}"`);
      expect(text(m2!.code)).to.include(`"${m2Btn()}"`);
    });
  }

  it('renames local names only: :global names, strings and asset addresses are kept', async () => {
    const [m1] = await engine.bundle([M1], developmentVariant('browser'));
    expect(m1!.errors).to.deep.equal([]);
    const styles = text(m1!.styles);
    const name = (local: string) => localName('app/m1/a.module.css', local);
    expect(styles).to.include(`.page .${name('btn')}:hover .${name('icon-x')}`);
    expect(styles).to.include(`#${name('mark')}`);
    expect(styles).to.include(`animation: ${name('spin')} 1s`).and.to.include(`@keyframes ${name('spin')}`);
    expect(styles).to.include('content: ".btn"');
    expect(styles).to.include('url(../assets/m1/icon.svg)');
    // The default export and the named exports give the same names.
    const code = text(m1!.code);
    for (const local of ['btn', 'icon-x', 'spin', 'mark']) expect(code).to.include(JSON.stringify(name(local)));
  });

  it('keeps the names of an edited sheet the same when the module is built again alone', async () => {
    const first = await engine.rebuild(M2, developmentVariant('browser'));
    fs.writeFileSync(path.join(root, 'app/m2/a.module.css'), '.btn { color: rgb(0, 128, 0); }\n');
    const edited = await engine.rebuild(M2, developmentVariant('browser'), undefined, { inputs: first.inputs, changed: ['app/m2/a.module.css'], code: null });
    expect(text(edited.styles)).to.include(`.${m2Btn()}`).and.to.include('rgb(0, 128, 0)');
    expect(text(edited.code)).to.include(`"${m2Btn()}"`);
  });

  it('says a CSS module that is not there cannot be resolved, as esbuild does', async () => {
    fs.writeFileSync(path.join(root, 'app/m2/index.ts'), "import s from './gone.module.css';\nexport const names = [s.btn];\n");
    const [m2] = await engine.bundle([M2], developmentVariant('browser'));
    expect(m2!.errors.map((error) => [error.kind, error.file])).to.deep.equal([['BUNDLE_ERROR', 'app/m2/index.ts']]);
    expect(m2!.errors[0]!.message).to.include('Could not resolve "./gone.module.css"');
  });

  it('renames a sheet with composes too: each name the code gets lists its composed names, renamed', async () => {
    fs.writeFileSync(path.join(root, 'app/m2/a.module.css'), '.base { color: red; }\n.btn { composes: base; composes: page from global; }\n');
    const name = (local: string) => localName('app/m2/a.module.css', local);
    const renamed = await renameLocalNames(esbuild, '.base { color: red; }\n.btn { composes: base; }\n', 'app/m2/a.module.css');
    expect(renamed && [...renamed.names]).to.deep.equal([['base', name('base')], ['btn', `${name('base')} ${name('btn')}`]]);
    for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
      const [m2] = await engine.bundle([M2], variant);
      expect(m2!.errors).to.deep.equal([]);
      expect(text(m2!.code)).to.include(JSON.stringify(`${name('base')} page ${name('btn')}`));
      // A rule left empty once `composes` is gone is dropped by the minifier: its name is still the code's.
      expect(text(m2!.styles)).to.include(`.${name('base')}`).and.not.to.match(/\.a_base[{ ]/);
    }
  });

  it("gives two modules' sheets with composes no common name in production, where esbuild's loader minified both alike", async () => {
    fs.writeFileSync(path.join(root, 'app/m1/index.ts'), "import s from './a.module.css';\nexport const names = [s.btn];\n");
    fs.writeFileSync(path.join(root, 'app/m1/a.module.css'), '.base { color: red; }\n.btn { composes: base; }\n');
    fs.writeFileSync(path.join(root, 'app/m2/a.module.css'), '.tint { color: blue; }\n.btn { composes: tint; }\n');
    const [m1] = await engine.bundle([M1], productionVariant('browser'));
    const [m2] = await engine.bundle([M2], productionVariant('browser'));
    expect([...m1!.errors, ...m2!.errors]).to.deep.equal([]);
    const classesOf = (result: BundleResult) => new Set([...text(result.styles).matchAll(/\.([A-Za-z_][\w-]*)/g)].map((match) => match[1]!));
    const shared = [...classesOf(m1!)].filter((each) => classesOf(m2!).has(each));
    expect(shared).to.deep.equal([]);
    expect(text(m1!.code)).to.include(JSON.stringify(`${localName('app/m1/a.module.css', 'base')} ${localName('app/m1/a.module.css', 'btn')}`));
  });
});
