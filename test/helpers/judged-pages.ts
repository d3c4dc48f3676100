// The checks the judges' browser tests share (test/browser/unbound-names.test.ts,
// declared-names.test.ts): each module /state calls invalid throws in Chromium in both variants
// as esbuild writes it, each it calls valid runs on the preview, and core dist judges alike.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import * as esbuildApi from 'esbuild';
import type { Browser } from 'playwright-core';
import { distribute } from '../../src/dist/distribute.js';
import { esbuildOptions } from '../../src/bundlers/esbuild-options.js';
import type { BundleTarget } from '../../src/bundlers/types.js';
import { developmentVariant, productionVariant } from '../../src/workspace/variant.js';
import { openPage, until } from './chromium.js';
import type { serve } from './service.js';

export interface JudgedSuite {
  browser: () => Browser;
  service: () => Awaited<ReturnType<typeof serve>>;
  root: () => string;
  /** The modules of `@u/app` (packages/app/NAME/ENTRY) that throw where the import runs, and what. */
  throwing: Record<string, { thrown: string }>;
  /** Those that run, and what they show in `#shown`. */
  running: Record<string, { shown: string }>;
  entryOf: (name: string) => string;
}

const WAIT_MS = 60_000;

/** The three tests, on the suite's service and browser. */
export function itJudgesAsChromiumRuns(suite: JudgedSuite): void {
  it('runs the code esbuild writes for each module /state calls invalid, and it throws on the page', async function () {
    const statuses = new Map((await suite.service().report()).modules.map((m) => [m.specifier, m.status]));
    for (const [name, { thrown }] of Object.entries(suite.throwing)) {
      const specifier = `@u/app/${name}`;
      expect(statuses.get(specifier), name).to.equal('invalid');
      for (const variant of [developmentVariant('browser'), productionVariant('browser')]) {
        const target: BundleTarget = { specifier, subpath: name, dir: `packages/app/${name}`, entry: `packages/app/${name}/${suite.entryOf(name)}`, assets: [], platforms: ['web'] };
        const built = await esbuildApi.build(esbuildOptions(suite.root(), [target], variant));
        const code = built.outputFiles!.find((file) => file.path.endsWith('.js'))!.text;
        const watched = await openPage(suite.browser());
        try {
          await watched.page.setContent('<!doctype html><html><body></body></html>');
          await watched.page.addScriptTag({ type: 'module', content: code });
          await until(() => watched.errors.length > 0, `${name} (${variant.env}) to throw`, WAIT_MS);
          expect(watched.errors.join(' | '), `${name} ${variant.env}`).to.include(thrown);
          expect(await watched.page.locator('#shown').count(), `${name} ${variant.env}`).to.equal(0);
        } finally {
          await watched.page.close();
        }
      }
    }
  });

  it('runs on the preview each module /state calls valid', async function () {
    const statuses = new Map((await suite.service().report()).modules.map((m) => [m.specifier, m.status]));
    for (const [name, { shown }] of Object.entries(suite.running)) {
      const specifier = `@u/app/${name}`;
      expect(statuses.get(specifier), name).to.equal('valid');
      const watched = await openPage(suite.browser());
      try {
        await watched.page.goto(new URL(`/preview/?entry=${encodeURIComponent(specifier)}`, suite.service().url).href, { waitUntil: 'load' });
        await watched.page.waitForSelector('#shown', { timeout: WAIT_MS }).catch(() => {
          throw new Error(`${specifier} never ran; page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}`);
        });
        expect(await watched.page.locator('#shown').textContent(), name).to.equal(shown);
        expect(watched.errors, name).to.deep.equal([]);
      } finally {
        await watched.page.close();
      }
    }
  });

  it('core dist judges as /state does: it writes each module that runs, and none that throws', async function () {
    const out = path.join(suite.root(), 'dist');
    const result = await distribute({ root: suite.root(), out, parallelism: 2 });
    const invalid = result.invalid.map(({ module }) => module.specifier).sort();
    expect(invalid).to.deep.equal(Object.keys(suite.throwing).map((name) => `@u/app/${name}`).sort());
    for (const name of Object.keys(suite.running)) expect(fs.existsSync(path.join(out, '@u/app@1.0.0/modules', `${name}.js`)), name).to.equal(true);
  });
}
