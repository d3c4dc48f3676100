// The build dashboard in Chromium: every module listed, a break and its fix shown live
// without a reload, the replay showing what `core replay --until N` prints, and the keyboard.
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { openPreview, type Watched } from '../helpers/chromium.js';
import { runCore } from '../helpers/cli.js';
import { edit } from '../helpers/edit.js';
import { BAD_IMPORT, BROKEN_FILE, BROKEN_MODULE, recordSession } from '../helpers/recorded-session.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace } from '../helpers/workspace.js';
import { lastSession, parseLog } from '../../src/store/replay.js';
import fs from 'node:fs';

const row = (specifier: string) => `.live .rows [data-module="${specifier}"]`;

async function tabUntil(page: Page, selector: string, most = 30): Promise<void> {
  for (let i = 0; i < most; i += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

describe('the build dashboard in Chromium', function () {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;
  let watched: Watched;

  before(async function () {
    root = exampleWorkspace();
    service = await serve(root);
    ({ browser, watched } = await openPreview(service.url, '/'));
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  it('lists every module of the workspace with its status', async function () {
    const state = (await service.get('/state')).json<{ modules: { specifier: string; status: string }[] }>();
    await watched.page.waitForFunction((count) => document.querySelectorAll('.live .rows [data-module]').length === count, state.modules.length);
    const shown = await watched.page.$$eval('.live .rows [data-module]', (rows) => rows.map((r) => [(r as HTMLElement).dataset.module, (r as HTMLElement).dataset.status]));
    expect(shown).to.deep.equal(state.modules.map((m) => [m.specifier, m.status]));
    expect(watched.errors, watched.errors.join('\n')).to.deep.equal([]);
  });

  it('shows a module invalid with its diagnostic when it breaks, and valid when fixed, without a reload', async function () {
    const { page } = watched;
    await page.click(row(BROKEN_MODULE));
    edit(root, BROKEN_FILE, (text) => text + BAD_IMPORT);
    await page.waitForSelector(`${row(BROKEN_MODULE)}[data-status="invalid"]`, { timeout: 15_000 });
    await page.waitForFunction(() => document.querySelector('.live .detail .diagnostic')?.textContent?.includes('no-such-file') ?? false);
    const diagnostic = await page.textContent('.live .detail .diagnostic');
    expect(diagnostic).to.match(new RegExp(`BUNDLE_ERROR\\s*${BROKEN_FILE.replace(/[.]/g, '\\.')}:\\d+:\\d+`));
    await page.waitForSelector('.live .detail .diagnostic .frame');
    edit(root, BROKEN_FILE, (text) => text.replace(BAD_IMPORT, ''));
    await page.waitForSelector(`${row(BROKEN_MODULE)}[data-status="valid"]`, { timeout: 15_000 });
    expect(await page.$('.live .detail .diagnostic')).to.equal(null);
    expect(watched.navigations(), 'the page never reloaded').to.equal(1);
    await page.waitForSelector('.live .timeline .bar.failed');
  });

  it('at 1,024 px wide, shows whole module names and sizes, and links the preview', async function () {
    const page = await browser.newPage({ viewport: { width: 1024, height: 768 } });
    try {
      await page.goto(service.url, { waitUntil: 'load' });
      await page.waitForSelector('.live .rows [data-module]');
      await page.waitForFunction(() => [...document.querySelectorAll('.live .rows .num')].some((cell) => /B$/.test(cell.textContent ?? '')));
      const cut = await page.$$eval('.live .rows [data-module] .name', (names) => names.filter((name) => name.scrollWidth > name.clientWidth).map((name) => name.textContent));
      expect(cut, 'module names cut off').to.deep.equal([]);
      const wrapped = await page.$$eval('.live .rows .num', (cells) => cells.filter((cell) => cell.getClientRects().length > 1 || (cell as HTMLElement).scrollHeight > (cell as HTMLElement).clientHeight + 1).map((cell) => cell.textContent));
      expect(wrapped, 'sizes wrapped').to.deep.equal([]);
      expect(await page.getAttribute('.bar .links a.preview-link', 'href')).to.equal('/preview/');
    } finally {
      await page.close();
    }
  });

  it('moves along the module list with the keyboard', async function () {
    const { page } = watched;
    await page.goto(service.url, { waitUntil: 'load' });
    await page.waitForSelector('.live .rows [data-module]');
    await tabUntil(page, '.live .rows[role="listbox"]');
    const specifiers = await page.$$eval('.live .rows [data-module]', (rows) => rows.map((r) => (r as HTMLElement).dataset.module));
    await page.keyboard.press('ArrowDown');
    expect(await page.textContent('.live .detail h2')).to.equal(specifiers[0]);
    await page.keyboard.press('ArrowDown');
    expect(await page.textContent('.live .detail h2')).to.equal(specifiers[1]);
    expect(await page.getAttribute(`${row(specifiers[1]!)}`, 'aria-selected')).to.equal('true');
  });

  describe('replay', function () {
    let record: string;
    let seqs: number[];
    before(async function () {
      record = await recordSession();
      seqs = lastSession(parseLog(fs.readFileSync(record, 'utf8')).events).map((event) => event.seq);
      await watched.page.goto(`${service.url}#replay`, { waitUntil: 'load' });
      await watched.page.setInputFiles('.replay input[type="file"]', record);
      await watched.page.waitForFunction((last) => document.querySelector<HTMLElement>('.replay')?.dataset.seq === String(last), seqs.at(-1));
    });

    it('shows the state that core replay --until N prints, at several points', async function () {
      const { page } = watched;
      const failed = lastSession(parseLog(fs.readFileSync(record, 'utf8')).events).find((event) => event.type === 'build.failed')!.seq;
      const points = [seqs[1]!, seqs[Math.floor(seqs.length / 3)]!, failed, seqs[Math.floor((2 * seqs.length) / 3)]!, seqs.at(-1)!];
      for (const seq of points) {
        await page.fill('.replay .seq-input', String(seq));
        await page.press('.replay .seq-input', 'Enter');
        await page.waitForFunction((s) => document.querySelector<HTMLElement>('.replay')?.dataset.seq === String(s), seq);
        const shown = JSON.parse((await page.textContent('.replay .report-json'))!);
        const printed = await runCore(['replay', record, '--until', String(seq)], { cwd: path.dirname(record) });
        expect(printed.code, printed.stderr).to.equal(0);
        expect(shown, `the state after seq ${seq}`).to.deep.equal(JSON.parse(printed.stdout));
      }
      // At the failure, the event that made the module invalid is named.
      await page.fill('.replay .seq-input', String(failed));
      await page.press('.replay .seq-input', 'Enter');
      await page.waitForFunction((s) => document.querySelector<HTMLElement>('.replay')?.dataset.seq === String(s), failed);
      expect(await page.textContent('.replay .event-detail')).to.include(BROKEN_MODULE).and.include('invalid');
      await page.click(`.replay .rows [data-module="${BROKEN_MODULE}"]`);
      expect(await page.textContent('.replay .cause')).to.include(`seq ${failed} build.failed`);
    });

    it('steps along the timeline with the arrow keys, Home and End', async function () {
      const { page } = watched;
      const seqNow = () => page.evaluate(() => Number(document.querySelector<HTMLElement>('.replay')!.dataset.seq));
      await page.focus('.replay .slider');
      await page.keyboard.press('End');
      expect(await seqNow()).to.equal(seqs.at(-1));
      await page.keyboard.press('ArrowLeft');
      expect(await seqNow()).to.equal(seqs.at(-2));
      await page.keyboard.press('Home');
      expect(await seqNow()).to.equal(seqs[0]);
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      expect(await seqNow()).to.equal(seqs[2]);
      // The event list moves the same way.
      await page.focus('.replay .virtual');
      await page.keyboard.press('ArrowDown');
      expect(await seqNow()).to.equal(seqs[3]);
      expect(await page.textContent('.replay .virtual .current')).to.include(String(seqs[3]));
      // By time, the slider's ends are the first and the last event.
      await page.selectOption('.replay select', 'time');
      await page.focus('.replay .slider');
      await page.keyboard.press('End');
      expect(await seqNow()).to.equal(seqs.at(-1));
      await page.keyboard.press('Home');
      expect(await seqNow()).to.equal(seqs[0]);
    });

    // A session recorded on a loaded machine lasts seconds: the slider by time then steps by
    // several milliseconds, and a span that is not a whole number of steps once left the last
    // event beyond End. Here the same events, the last 10,001 ms after the first (steps of 10).
    it('by time, End reaches the last event of a session whose span is no whole number of steps', async function () {
      const { page } = watched;
      const lines = fs.readFileSync(record, 'utf8').split('\n').filter((line) => line !== '');
      const events = lastSession(parseLog(lines.join('\n')).events);
      const first = Date.parse(events[0]!.time);
      const retimed = lines.map((line) => {
        const event = JSON.parse(line) as { seq: number; time: string };
        const at = event.seq === seqs.at(-1) ? first + 10_001 : first + Math.max(0, seqs.indexOf(event.seq));
        return JSON.stringify({ ...event, time: new Date(at).toISOString() });
      });
      const long = path.join(path.dirname(record), 'long-session.ndjson');
      fs.writeFileSync(long, `${retimed.join('\n')}\n`);
      await page.setInputFiles('.replay input[type="file"]', long);
      await page.waitForFunction(() => document.querySelector('.replay .load-status')?.textContent?.includes('long-session.ndjson') ?? false);
      const seqNow = () => page.evaluate(() => Number(document.querySelector<HTMLElement>('.replay')!.dataset.seq));
      await page.selectOption('.replay select', 'time');
      await page.focus('.replay .slider');
      await page.keyboard.press('Home');
      expect(await seqNow()).to.equal(seqs[0]);
      await page.keyboard.press('End');
      expect(await seqNow()).to.equal(seqs.at(-1));
    });
  });
});
