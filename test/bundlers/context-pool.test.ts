// The kept esbuild contexts (src/bundlers/context-pool.ts): a rebuild that succeeds is answered as
// esbuild ends it, not one round trip to esbuild's process later; a failure is still the error
// esbuild's rebuild() makes.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type * as esbuild from 'esbuild';
import { isBuildFailure } from '../../src/bundlers/build-results.js';
import { createContextPool } from '../../src/bundlers/context-pool.js';
import { esbuildHolds } from '../helpers/esbuild-holds.js';
import { esbuildChild } from '../helpers/esbuild-process.js';
import { tempWorkspace } from '../helpers/workspace.js';

describe('createContextPool', () => {
  let root: string;
  let pool: ReturnType<typeof createContextPool>;
  let order: string[];
  // A plugin of the caller's whose end of each build notes the next turn of the event loop:
  // esbuild's process answers rebuild() no sooner than that.
  const options = (): esbuild.BuildOptions => ({
    absWorkingDir: root,
    entryPoints: [path.join(root, 'index.ts')],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    logLevel: 'silent',
    plugins: [{ name: 'next-turn', setup: (build) => void build.onEnd(() => void setImmediate(() => order.push('next turn'))) }],
  });

  beforeEach(() => {
    root = tempWorkspace({ 'index.ts': "export { helper } from './helper.ts';\n", 'helper.ts': 'export const helper = 1;\n' });
    pool = createContextPool();
    order = [];
  });
  afterEach(() => pool.dispose());

  it('answers a successful rebuild in the turn esbuild ends it, with its outputs', async () => {
    await pool.rebuild('key', 'signature', options);
    await new Promise((resolve) => setImmediate(resolve));
    order = [];
    fs.writeFileSync(path.join(root, 'helper.ts'), 'export const helper = 2;\n');
    const result = await pool.rebuild('key', 'signature', options);
    order.push('rebuilt');
    expect(order).to.deep.equal(['rebuilt']);
    expect(result.outputFiles!.map((file) => file.text).join('')).to.include('helper = 2');
    // The next rebuild of the context waits for esbuild's answer to this one, then runs.
    fs.writeFileSync(path.join(root, 'helper.ts'), 'export const helper = 3;\n');
    expect((await pool.rebuild('key', 'signature', options)).outputFiles!.map((file) => file.text).join('')).to.include('helper = 3');
  });

  it('rejects a failed rebuild with the failure esbuild reports', async () => {
    await pool.rebuild('key', 'signature', options);
    fs.writeFileSync(path.join(root, 'helper.ts'), 'export const helper = ;\n');
    const failure = await pool.rebuild('key', 'signature', options).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isBuildFailure(failure)).to.equal(true);
    expect((failure as esbuild.BuildFailure).errors.map((error) => error.text)).to.deep.equal(['Unexpected ";"']);
    fs.writeFileSync(path.join(root, 'helper.ts'), 'export const helper = 4;\n');
    expect((await pool.rebuild('key', 'signature', options)).outputFiles!.map((file) => file.text).join('')).to.include('helper = 4');
  });

  // A context made while the pool was disposed was kept by nobody: alive, it held esbuild's
  // process, and esbuild stopped then printed "all goroutines are asleep - deadlock!".
  it('disposed while a context is being made, waits for it and disposes it, holding esbuild no more, then starts afresh', async () => {
    const held = esbuildHolds();
    let settled = false;
    const rebuilt = pool.rebuild('key', 'signature', options).then(
      () => 'built',
      (error: Error) => error.name,
    );
    void rebuilt.then(() => (settled = true));
    await pool.dispose();
    expect(settled, 'the rebuild settled before dispose() did').to.equal(true);
    expect(await rebuilt).to.equal('BuildCancelled');
    expect(esbuildHolds(), "esbuild's process held after dispose()").to.equal(held);
    // Disposed, the pool starts afresh.
    expect((await pool.rebuild('key', 'signature', options)).outputFiles!.map((file) => file.text).join('')).to.include('helper = 1');
  });

  // Two builds of one key that both found no context each made one, and the second replaced the
  // first in the pool: the first was disposed by nobody and held esbuild's process for good
  // (seen after the edit storm, whose cancelled builds start again at once).
  it('two rebuilds of one key that each make a context keep one, and dispose the other', async () => {
    const held = esbuildHolds();
    const outcomes = await Promise.all([pool.rebuild('key', 'signature', options), pool.rebuild('key', 'signature', options)]);
    expect(outcomes.map((result) => result.errors)).to.deep.equal([[], []]);
    await pool.dispose();
    expect(esbuildHolds(), "esbuild's process held after dispose()").to.equal(held);
  });

  // esbuild 0.28's process dies of a nil pointer (its service.go:706) when a context's dispose
  // arrives after a rebuild and its cancel, before the rebuild started: a new signature (or the
  // pool's limit) used to dispose the context it replaced at once (README "When esbuild's process dies").
  it("disposes a replaced context only once its cancelled rebuild has ended: esbuild's process survives", async function () {
    this.timeout(120_000);
    await pool.rebuild('key', 'signature 0', options);
    const before = esbuildChild();
    expect(before, "esbuild's process").to.be.a('number');
    for (let round = 1; round <= 20; round++) {
      // The last rebuild winds down (its answer follows the result the pool gave) before this one
      // starts, as between two edits: the rebuild is then sent at once, then its cancel, then the
      // dispose. Not a condition waited for: a slower machine makes the race rarer, never a failure.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const caller = new AbortController();
      const cancelled = pool.rebuild('key', `signature ${round - 1}`, options, caller.signal).catch((error: Error) => error);
      caller.abort();
      const replaced = await pool.rebuild('key', `signature ${round}`, options);
      expect(replaced.errors, `round ${round}`).to.deep.equal([]);
      expect(((await cancelled) as Error).name, `round ${round}`).to.equal('BuildCancelled');
    }
    expect(esbuildChild(), "esbuild's process after 20 rounds").to.equal(before);
  });
});

