// An `@import` Chromium ignores is an error of its module, never `valid` (README "Workspaces",
// "Stylesheet modules"): one after a rule in a linked sheet (esbuild keeps it as written), and any
// in a sheet imported as a CSS module script (the standard drops it). Chromium is shown dropping
// each, as the service serves it, and the page written as the errors say is valid and styled.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { colourOf, launchChromium, openPage, waitForColour } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace, writeFile } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';
import type { Report } from '../../src/store/selectors.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

function workspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/a'], preview: '@p/a/main' }),
    'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', exports: { './main': './main/index.ts', './card': './card/index.ts' } }),
    'packages/a/main/index.ts': "import './a.css';\nimport '@p/a/card';\ndocument.body.insertAdjacentHTML('beforeend', '<p class=\"late\">late</p>');\n",
    'packages/a/main/a.css': ".main { color: rgb(1, 2, 3); }\n@import './b.css';\n",
    'packages/a/main/b.css': '.late { color: rgb(4, 5, 6); }\n',
    'packages/a/card/module.json': json({ assets: ['card.css', 'extra.css'] }),
    'packages/a/card/card.css': "@import './extra.css';\n.card { color: rgb(11, 12, 13); }\n",
    'packages/a/card/extra.css': '.extra { color: rgb(21, 22, 23); }\n',
    'packages/a/card/index.ts': `import sheet from './card.css' with { type: 'css' };
const host = document.createElement('div');
host.className = 'card-host';
document.body.append(host);
const shadow = host.attachShadow({ mode: 'open' });
shadow.adoptedStyleSheets = [sheet];
shadow.innerHTML = '<p class="card">card</p><p class="extra">extra</p>';
`,
  });
}

describe('@import rules Chromium drops, in Chromium', () => {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async () => {
    root = workspace();
    service = await serve(root, { cdnOrigin: 'local' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('lists each module invalid at its @import, which Chromium drops from the sheet as served', async () => {
    const report = await service.report();
    const placed = (specifier: string) => report.modules.find((m) => m.specifier === specifier)!.diagnostics.map((d) => [d.kind, d.file, d.line, d.column]);
    expect(placed('@p/a/main')).to.deep.equal([['BUNDLE_ERROR', 'packages/a/main/a.css', 2, 1]]);
    expect(placed('@p/a/card')).to.deep.equal([['BUNDLE_ERROR', 'packages/a/card/card.css', 1, 1]]);

    const watched = await openPage(browser);
    try {
      const asset = new URL('/m/@p/a@1.0.0/assets/card/card.css', service.url).href;
      await watched.page.goto(asset);
      // The declared sheet as served, made by Chromium as the CSS module script makes it: no @import rule, no `.extra`.
      const rules = await watched.page.evaluate(async (address) => {
        const { default: sheet } = (await import(address, { with: { type: 'css' } })) as { default: CSSStyleSheet };
        return [...sheet.cssRules].map((rule) => rule.cssText);
      }, asset);
      expect(rules).to.deep.equal(['.card { color: rgb(11, 12, 13); }']);
      // An @import after a rule, as esbuild kept it in a linked sheet: Chromium drops it.
      const linked = await watched.page.evaluate(() => {
        const style = document.createElement('style');
        style.textContent = ".main { color: rgb(1, 2, 3); }\n@import './b.css';\n";
        document.head.append(style);
        return [...style.sheet!.cssRules].map((rule) => rule.cssText);
      });
      expect(linked).to.deep.equal(['.main { color: rgb(1, 2, 3); }']);
    } finally {
      await watched.page.close();
    }
  });

  it('is valid and styled once written as the errors say: the @import on top, both sheets adopted', async () => {
    writeFile(root, 'packages/a/main/a.css', "@import './b.css';\n.main { color: rgb(1, 2, 3); }\n");
    writeFile(root, 'packages/a/card/card.css', '.card { color: rgb(11, 12, 13); }\n');
    writeFile(
      root,
      'packages/a/card/index.ts',
      `import sheet from './card.css' with { type: 'css' };
import extra from './extra.css' with { type: 'css' };
const host = document.createElement('div');
host.className = 'card-host';
document.body.append(host);
const shadow = host.attachShadow({ mode: 'open' });
shadow.adoptedStyleSheets = [extra, sheet];
shadow.innerHTML = '<p class="card">card</p><p class="extra">extra</p>';
`,
    );
    await waitFor(async () => (await service.get('/state')).json<Report>().modules.every((m) => m.status === 'valid'), { timeout: 60_000, what: 'both modules valid' });
    const watched = await openPage(browser);
    try {
      await watched.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
      await watched.page.waitForSelector('p.late');
      await waitForColour(watched, '.late', 'rgb(4, 5, 6)');
      const shadowColour = (selector: string) =>
        watched.page.evaluate((inside) => {
          const found = document.querySelector('.card-host')?.shadowRoot?.querySelector(inside);
          return found ? getComputedStyle(found).color : '(none)';
        }, selector);
      expect(await shadowColour('.card')).to.equal('rgb(11, 12, 13)');
      expect(await shadowColour('.extra')).to.equal('rgb(21, 22, 23)');
      expect(await colourOf(watched.page, '.late')).to.equal('rgb(4, 5, 6)');
      expect(watched.errors).to.deep.equal([]);
      expect(watched.failed).to.deep.equal([]);
    } finally {
      await watched.page.close();
    }
  });
});
