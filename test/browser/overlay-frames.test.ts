// The overlay shows the lines a build error points at (README "Preview and stylesheet push"), as
// the terminal does, on a page open when the save breaks the build and on one opened after.
import { expect } from 'chai';
import { eventsOpen, openPreview } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace, writeFile } from '../helpers/workspace.js';

const BROKEN = 'export const broken = ;';
const overlayFrames = () => [...(document.querySelector('core-overlay')?.shadowRoot?.querySelectorAll('pre.frame') ?? [])].map((frame) => frame.textContent ?? '');

describe('the lines of a build error, in the overlay', function () {
  it('are shown under the message, with a caret under the column, and never reach the state', async function () {
    const root = exampleWorkspace();
    const service = await serve(root);
    const { browser, watched } = await openPreview(service.url);
    try {
      await eventsOpen(watched);
      // A line longer than the overlay is wide: its frame scrolls on its own, the message stays in view.
      writeFile(root, 'packages/shop/storefront/cart.ts', `export const totalCents = () => 0; // ${'long '.repeat(80)}\nexport type Line = { name: string; cents: number; quantity: number };\n${BROKEN}\n`);
      await watched.page.waitForFunction((line) => {
        const frames = [...(document.querySelector('core-overlay')?.shadowRoot?.querySelectorAll('pre.frame') ?? [])].map((frame) => frame.textContent ?? '');
        return frames.some((frame) => frame.includes(line));
      }, BROKEN, { timeout: 15_000 });
      const [frame] = await watched.page.evaluate(overlayFrames);
      expect(frame, frame).to.include(`> 3 | ${BROKEN}\n    | ${' '.repeat(BROKEN.indexOf(';'))}^`);
      const widths = await watched.page.evaluate(() => {
        const overlay = document.querySelector('core-overlay')!.shadowRoot!;
        const [section, pre] = [overlay.querySelector('section')!, overlay.querySelector('pre.frame')!];
        return { section: section.scrollWidth - section.clientWidth, frame: pre.scrollWidth - pre.clientWidth };
      });
      expect(widths.frame, 'the frame is wider than it shows').to.be.greaterThan(0);
      expect(widths.section, 'the overlay itself does not scroll sideways').to.equal(0);
      // A page opened now hears the error with its lines too.
      await watched.page.reload({ waitUntil: 'load' });
      await watched.page.waitForFunction((line) => {
        const frames = [...(document.querySelector('core-overlay')?.shadowRoot?.querySelectorAll('pre.frame') ?? [])].map((frame) => frame.textContent ?? '');
        return frames.some((frame) => frame.includes(line));
      }, BROKEN, { timeout: 15_000 });
      // The source text is the page's only: /state and the log carry the place, not the lines.
      expect((await service.get('/state')).body.toString()).to.not.include(BROKEN);
      expect((await service.get('/log')).body.toString()).to.not.include(BROKEN);
    } finally {
      await browser.close();
      await service.close();
    }
  });
});
