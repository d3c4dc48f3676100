// The dashboard's timeline (src/dashboard/client/timeline.ts) drawn in Chromium from spans given
// here: a bar per build while they are fewer than the strip's pixels, else one bar per run of
// pixels of one lane with the same worst outcome.
import { expect } from 'chai';
import * as esbuild from 'esbuild';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { BuildOutcome, BuildSpan } from '../../src/store/build-history.js';
import { launchChromium } from '../helpers/chromium.js';

const TIMELINE = fileURLToPath(new URL('../../src/dashboard/client/timeline.ts', import.meta.url));

/** A build of one module from `start` to `end` (ms since the epoch), its sequence numbers in that order. */
const span = (build: number, start: number, end: number, outcome: BuildOutcome): BuildSpan => ({
  build,
  variant: 'default',
  bundler: 'esbuild',
  reason: 'startup',
  modules: [`@r/lib/m${build}`],
  incremental: false,
  started: new Date(start).toISOString(),
  startSeq: build * 2,
  ended: new Date(end).toISOString(),
  endSeq: build * 2 + 1,
  outcome,
  failed: outcome === 'failed' ? [`@r/lib/m${build}`] : [],
});

interface DrawnBar {
  outcome: string | undefined;
  build: string | undefined;
  title: string;
}

async function draw(page: Page, spans: BuildSpan[], window: { from: number; to: number }): Promise<DrawnBar[]> {
  return page.evaluate(
    ({ spans, window }) => {
      const container = document.getElementById('timeline')!;
      (globalThis as unknown as { timeline: { renderTimeline(c: HTMLElement, s: unknown, w: unknown): void } }).timeline.renderTimeline(container, spans, window);
      return [...container.querySelectorAll<HTMLElement>('.bar')].map((bar) => ({ outcome: bar.dataset.outcome, build: bar.dataset.build, title: bar.title }));
    },
    { spans, window },
  );
}

describe('the dashboard timeline', function () {
  let browser: Browser;
  let page: Page;

  before(async function () {
    const bundle = await esbuild.build({ entryPoints: [TIMELINE], bundle: true, format: 'iife', globalName: 'timeline', platform: 'browser', write: false, logLevel: 'silent' });
    browser = await launchChromium();
    page = await browser.newPage();
    // 200 px: the fewest pixels the timeline draws, so 300 builds are more than its pixels.
    await page.setContent('<div id="timeline" style="width: 200px"></div>');
    await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
  });
  after(async function () {
    await browser?.close();
  });

  it('draws a bar per build, named by its number, while the builds are fewer than its pixels', async function () {
    const bars = await draw(page, [span(1, 1_000, 2_000, 'succeeded'), span(2, 3_000, 4_000, 'failed')], { from: 0, to: 10_000 });
    expect(bars.map(({ outcome, build }) => [outcome, build])).to.deep.equal([
      ['succeeded', '1'],
      ['failed', '2'],
    ]);
    expect(bars[1]!.title).to.match(/^#2 @r\/lib\/m2\n/);
  });

  it('draws more builds than pixels as runs of pixels, each of the worst outcome in it', async function () {
    // A build every 0.6 pixel (a pixel is 1,000 ms), all on one lane, none across a pixel's
    // edge: build 151 fails, and shares its pixel (90) with build 150, which succeeds and comes
    // first: the pixel takes the worse outcome, not the first one met.
    const spans = Array.from({ length: 300 }, (_, index) => span(index, index * 600 + 250, index * 600 + 350, index === 151 ? 'failed' : 'succeeded'));
    const bars = await draw(page, spans, { from: 0, to: 200_000 });
    expect(bars.map(({ outcome, build }) => [outcome, build])).to.deep.equal([
      ['succeeded', undefined],
      ['failed', undefined],
      ['succeeded', undefined],
    ]);
    expect(bars[1]!.title).to.match(/^2 builds, the worst failed\n/);
    const counted = bars.map(({ title }) => Number(/^(\d+) builds/.exec(title)?.[1]));
    expect(counted.reduce((sum, count) => sum + count, 0)).to.equal(300);
  });
});
