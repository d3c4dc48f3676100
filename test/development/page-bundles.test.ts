// The bundles of the bundled preview (src/development/bundled-preview.ts `createPageBundles`):
// joined once per plan, their source maps joined only when asked for, and an address of a
// bundle no longer kept answered as such; a joined page saved for the next start.
import { expect } from 'chai';
import fs from 'node:fs';
import type { JoinFiles } from '../../src/bundlers/join-files.js';
import { createJoinFiles } from '../../src/io/join-directory.js';
import { joinedFiles, type PageBundleInput } from '../../src/bundlers/page-bundle.js';
import { BundleOutputGone, createPageBundles, type PageBundlePlan } from '../../src/development/bundled-preview.js';
import type { JoinedPage, JoinedPages } from '../../src/io/joined-pages.js';
import { createOutputCache } from '../../src/outputs/output-cache.js';

function setup() {
  const outputs = createOutputCache();
  const code = outputs.put(Buffer.from('export const a = 1;\n'));
  const styles = outputs.put(Buffer.from('.a { color: red }\n'));
  const plan = (key: string): PageBundlePlan => ({
    key,
    entry: '@t/app/main',
    modules: new Map([['@t/app/main', { address: `/m/@t/app@1.0.0/modules/main?v=${code.hash}`, hash: code.hash }]]),
    sheets: [{ address: `/m/@t/app@1.0.0/styles/main?v=${styles.hash}`, hash: styles.hash }],
    imports: {},
    broken: [],
  });
  const calls = { files: 0, maps: 0 };
  const joiner = {
    files: async (input: PageBundleInput) => {
      calls.files += 1;
      return { code: Buffer.from([...input.modules.values()].map((module) => module.code).join('')), styles: [Buffer.from(input.sheets.map((sheet) => sheet.styles).join(''))] };
    },
    maps: async (input: PageBundleInput) => {
      calls.maps += 1;
      return { codeMap: Buffer.from(JSON.stringify({ modules: input.modules.size })), stylesMap: [Buffer.from(JSON.stringify({ sheets: input.sheets.length }))] };
    },
  };
  const bundles = createPageBundles(outputs, (kind, entry, key) => `/${kind}?entry=${entry}&v=${key}`, { join: joiner });
  return { outputs, plan, calls, bundles, joiner };
}

describe('createPageBundles', () => {
  it('joins a plan once, links its maps by the plan key, and joins the maps only when one is asked for', async () => {
    const { plan, calls, bundles } = setup();
    const page = await bundles.bundle(plan('KEY1'));
    expect(await bundles.bundle(plan('KEY1'))).to.equal(page);
    expect(page.code.body.toString()).to.equal('export const a = 1;\n//# sourceMappingURL=/codeMap?entry=@t/app/main&v=KEY1\n');
    // A part of the joined sheet names its map by the sheets it joins: an edit of the code alone keeps its bytes.
    expect(page.partKeys).to.have.length(1).and.not.include('KEY1');
    expect(page.styles[0]!.body.toString()).to.equal(`.a { color: red }\n/*# sourceMappingURL=/stylesMap?entry=@t/app/main&v=${page.partKeys[0]} */\n`);
    expect(bundles.find(page.code.hash)).to.equal(page.code);
    expect(calls).to.deep.equal({ files: 1, maps: 0 });
    const codeMap = (await bundles.findMap('codeMap', 'KEY1'))!;
    const stylesMap = (await bundles.findMap('stylesMap', page.partKeys[0]!))!;
    expect(JSON.parse(codeMap.body.toString())).to.deep.equal({ modules: 1 });
    expect(JSON.parse(stylesMap.body.toString())).to.deep.equal({ sheets: 1 });
    expect(calls, 'both maps from one join').to.deep.equal({ files: 1, maps: 1 });
    expect(bundles.findMap('codeMap', 'OTHER')).to.equal(undefined);
  });

  it('says so when the outputs a kept bundle was joined from are gone, and joins its maps once they are back', async () => {
    const { outputs, plan, calls, bundles } = setup();
    await bundles.bundle(plan('KEY1'));
    outputs.retain(new Set());
    let failure: unknown;
    await bundles.findMap('codeMap', 'KEY1')!.catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(BundleOutputGone);
    outputs.put(Buffer.from('export const a = 1;\n'));
    outputs.put(Buffer.from('.a { color: red }\n'));
    expect(JSON.parse((await bundles.findMap('codeMap', 'KEY1'))!.body.toString())).to.deep.equal({ modules: 1 });
    expect(calls.maps).to.equal(1);
  });

  it('saves what it joins, and a restart answers a saved plan without joining it, its maps still joined when asked for', async () => {
    const saved = new Map<string, JoinedPage>();
    const pages: JoinedPages = { any: () => saved.size > 0, read: (key) => saved.get(key) ?? null, write: async (key, page) => void saved.set(key, page) };
    const first = setup();
    const joined = await createPageBundles(first.outputs, (kind, entry, key) => `/${kind}?entry=${entry}&v=${key}`, { join: first.joiner, saved: pages }).bundle(first.plan('KEY1'));
    expect([...saved.keys()]).to.deep.equal(['KEY1']);
    expect(saved.get('KEY1')!.code.toString(), 'saved without the address of its map').to.equal('export const a = 1;\n');

    const restarted = setup();
    const bundles = createPageBundles(restarted.outputs, (kind, entry, key) => `/${kind}?entry=${entry}&v=${key}`, { join: restarted.joiner, saved: pages });
    const page = await bundles.bundle(restarted.plan('KEY1'));
    expect(restarted.calls.files, 'not joined again').to.equal(0);
    expect(page.code.body.equals(joined.code.body)).to.equal(true);
    expect(page.styles[0]!.body.equals(joined.styles[0]!.body)).to.equal(true);
    expect(bundles.find(page.code.hash)).to.equal(page.code);
    expect(JSON.parse((await bundles.findMap('codeMap', 'KEY1'))!.body.toString())).to.deep.equal({ modules: 1 });
    await bundles.bundle(restarted.plan('KEY2'));
    expect(restarted.calls.files, 'a plan never saved is joined').to.equal(1);
  });

  it('keeps the files a restored page joins its maps from while another join ends', async () => {
    const { plan, outputs } = setup();
    const real = createJoinFiles();
    const retained: ReadonlySet<string>[] = [];
    const files: JoinFiles = { ...real, retain: (keep) => (retained.push(new Set(keep)), real.retain(keep)) };
    let mapsJoined!: () => void;
    const joiner = {
      files: async () => ({ code: Buffer.from('joined'), styles: [Buffer.from('')] }),
      maps: () => new Promise<{ codeMap: Buffer; stylesMap: Buffer[] }>((resolve) => (mapsJoined = () => resolve({ codeMap: Buffer.from('{}'), stylesMap: [Buffer.from('{}')] }))),
    };
    const pages: JoinedPages = { any: () => true, read: (key) => (key === 'KEY1' ? { code: Buffer.from('restored'), styles: [Buffer.from('')] } : null), write: async () => {} };
    const bundles = createPageBundles(outputs, (kind, entry, key) => `/${kind}?entry=${entry}&v=${key}`, { join: joiner, files, saved: pages });
    await bundles.bundle(plan('KEY1'));
    const map = bundles.findMap('codeMap', 'KEY1')!;
    await bundles.bundle({ ...plan('KEY2'), modules: new Map(), sheets: [] }); // files of its own: none
    const restored = plan('KEY1');
    const restoredFiles = joinedFiles({ modules: new Map([...restored.modules].map(([specifier, { address, hash }]) => [specifier, { address, hash, code: '' }])), sheets: restored.sheets.map((sheet) => ({ ...sheet, styles: '' })) }, files);
    expect(retained.length, 'the other join ended').to.be.above(0);
    expect(restoredFiles.filter((file) => !retained.at(-1)!.has(file)), 'files of the restored page removed').to.deep.equal([]);
    mapsJoined();
    await map;
    real.remove();
  });

  it('keeps the last four bundles: an earlier one is forgotten, with its maps', async () => {
    const { plan, bundles } = setup();
    const first = await bundles.bundle(plan('KEY1'));
    for (const key of ['KEY2', 'KEY3', 'KEY4']) await bundles.bundle(plan(key));
    expect(bundles.find(first.code.hash)).to.equal(first.code);
    expect(bundles.findMap('codeMap', 'KEY1')).to.not.equal(undefined);
    await bundles.bundle(plan('KEY5'));
    expect(bundles.findMap('codeMap', 'KEY1')).to.equal(undefined);
    expect(bundles.find(first.code.hash), 'its code names its own maps: no kept bundle has those bytes').to.equal(undefined);
  });

  it('keeps the files the kept bundles were joined from, removes the others, and all of them at dispose', async function () {
    const outputs = createOutputCache();
    const files = createJoinFiles();
    const bundles = createPageBundles(outputs, (kind, _entry, key) => `/${kind}?v=${key}`, { files });
    const planOf = (n: number): PageBundlePlan => {
      const code = outputs.put(Buffer.from(`globalThis.edit = ${n};\n`));
      const styles = outputs.put(Buffer.from(`.a { z-index: ${n} }\n`));
      return {
        key: `KEY${n}`,
        entry: '@t/app/main',
        modules: new Map([['@t/app/main', { address: `/m/@t/app@1.0.0/modules/main?v=${code.hash}`, hash: code.hash }]]),
        sheets: [{ address: `/m/@t/app@1.0.0/styles/main?v=${styles.hash}`, hash: styles.hash }],
        imports: {},
        broken: [],
      };
    };
    const filesOf = (plan: PageBundlePlan) => joinedFiles({ modules: new Map([...plan.modules].map(([specifier, { address, hash }]) => [specifier, { address, hash, code: '' }])), sheets: plan.sheets.map((sheet) => ({ ...sheet, styles: '' })) }, files);
    const plans = [1, 2, 3, 4, 5].map(planOf);
    for (const plan of plans) expect((await bundles.bundle(plan)).code.body.toString()).to.include(`globalThis.edit = ${plan.key.slice(3)}`);
    expect(filesOf(plans[0]!).some((file) => fs.existsSync(file)), 'the forgotten bundle').to.equal(false);
    for (const plan of plans.slice(1)) for (const file of filesOf(plan).filter((file) => !file.includes('.map.'))) expect(fs.existsSync(file), file).to.equal(true);
    const dir = files.dir();
    bundles.dispose();
    expect(fs.existsSync(dir)).to.equal(false);
  });

  it('joins again after its directory vanished: a failed join is reported, the next one writes every file again', async function () {
    const outputs = createOutputCache();
    const files = createJoinFiles();
    const bundles = createPageBundles(outputs, (kind, _entry, key) => `/${kind}?v=${key}`, { files });
    const code = outputs.put(Buffer.from('globalThis.joined = 1;\n'));
    const plan = (key: string): PageBundlePlan => ({ key, entry: '@t/app/main', modules: new Map([['@t/app/main', { address: `/m/@t/app@1.0.0/modules/main?v=${code.hash}`, hash: code.hash }]]), sheets: [], imports: {}, broken: [] });
    await bundles.bundle(plan('KEY1'));
    fs.rmSync(files.dir(), { recursive: true, force: true });
    let failure: unknown;
    await bundles.bundle(plan('KEY2')).catch((error: unknown) => (failure = error));
    expect(failure, 'the file it had written is gone').to.be.instanceOf(Error);
    expect((await bundles.bundle(plan('KEY3'))).code.body.toString()).to.include('globalThis.joined = 1');
    bundles.dispose();
  });
});
