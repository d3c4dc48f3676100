// Two modules' CSS modules with the same file name and class name (`m1/a.module.css` and
// `m2/a.module.css`, each `.btn`) on one page, in Chromium (README "Stylesheet modules"): each
// element is styled by its own module's rules, on /preview/, after an edit that builds one module
// alone, after a restart from the build cache, and from `core dist`'s page. Both were `.a_btn`
// when built apart, and m1's element took m2's rules.
import { expect } from 'chai';
import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { distribute } from '../../src/dist/distribute.js';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { edit } from '../helpers/edit.js';
import { serve } from '../helpers/service.js';
import { staticServer } from '../helpers/static-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const RED = 'rgb(255, 0, 0) rgba(0, 0, 0, 0)';
const BLUE = 'rgb(0, 0, 255) rgb(0, 0, 255)';

// The same with `composes` (each `.btn` composing a name of its own sheet): such sheets kept
// esbuild's own names, which production minified to the same `.o` in both modules, so m2's rules
// styled m1's element from core dist's page.
const SHEETS = [
  { title: '', m1: '.btn { color: rgb(255, 0, 0); }\n', m2: '.btn { color: rgb(0, 0, 255); background: rgb(0, 0, 255); }\n' },
  {
    title: ', composing names of their own sheets',
    m1: '.base { color: rgb(255, 0, 0); }\n.btn { composes: base; }\n',
    m2: '.tint { color: rgb(0, 0, 255); background: rgb(0, 0, 255); }\n.btn { composes: tint; }\n',
  },
];

for (const sheets of SHEETS) describe(`CSS modules of two modules on one page${sheets.title}, in Chromium`, function () {
  let browser: Browser;
  let root: string;

  before(async function () {
    root = tempWorkspace({
      'core.json': json({ packages: ['packages/c'], preview: '@c/c/m1' }),
      'packages/c/package.json': json({ name: '@c/c', version: '1.0.0', exports: { './m1': './m1/index.ts', './m2': './m2/index.ts' } }),
      'packages/c/m1/a.module.css': sheets.m1,
      'packages/c/m2/a.module.css': sheets.m2,
      'packages/c/m2/index.ts': "import s from './a.module.css';\nexport const makeBlue = () => { const d = document.createElement('div'); d.className = s.btn; d.id = 'm2'; return d; };\n",
      'packages/c/m1/index.ts': [
        "import s from './a.module.css';",
        "import { makeBlue } from '@c/c/m2';",
        "const red = document.createElement('div'); red.className = s.btn; red.id = 'm1';",
        'document.body.append(red, makeBlue());',
        "document.body.dataset.ok = 'm1';",
        '',
      ].join('\n'),
    });
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
  });

  /** Each element's colour and background once both sheets apply, and the page's failures. */
  async function shown(url: string): Promise<{ m1: string; m2: string; failed: string[]; errors: string[] }> {
    const watched = await openPage(browser);
    try {
      await watched.page.goto(url, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body.dataset.ok === 'm1', undefined, { timeout: 15_000 });
      const styleOf = (id: string) => watched.page.evaluate((id) => { const style = getComputedStyle(document.getElementById(id)!); return `${style.color} ${style.backgroundColor}`; }, id);
      // Both sheets are linked: m2's element turns blue once its sheet applies.
      await waitFor(async () => (await styleOf('m2')) === BLUE || undefined, { timeout: 15_000, what: "m2's sheet to apply" }).catch(() => undefined);
      return { m1: await styleOf('m1'), m2: await styleOf('m2'), failed: watched.failed, errors: watched.errors };
    } finally {
      await watched.page.close();
    }
  }

  const expected = { m1: RED, m2: BLUE, failed: [], errors: [] };

  it('styles each element by its own rules, built together, after an edit building m2 alone, and after a restart from the build cache', async function () {
    // The build cache on, in a place of its own: the second start takes its outputs from there.
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'core-css-module-cache-'));
    let service = await serve(root, { cache });
    let stylesBefore: string;
    try {
      expect((await service.report()).modules.map((m) => [m.specifier, m.status])).to.deep.equal([['@c/c/m1', 'valid'], ['@c/c/m2', 'valid']]);
      expect(await shown(new URL('/preview/', service.url).href)).to.deep.equal(expected);
      expect(await shown(new URL('/preview/bundled/', service.url).href), '/preview/bundled/').to.deep.equal(expected);
      stylesBefore = (await service.get('/m/@c/c@1.0.0/styles/m2')).text;
      const codeBefore = (await service.get('/m/@c/c@1.0.0/modules/m2')).text;
      edit(root, 'packages/c/m2/index.ts', (text) => `${text}// edited\n`);
      await waitFor(async () => (await service.get('/m/@c/c@1.0.0/modules/m2')).text !== codeBefore || undefined, { timeout: 20_000, what: 'the edit of m2 to be built' });
      expect((await service.get('/m/@c/c@1.0.0/styles/m2')).text, 'the sheet of m2 built alone').to.equal(stylesBefore);
      expect(await shown(new URL('/preview/', service.url).href)).to.deep.equal(expected);
    } finally {
      await service.close();
    }
    service = await serve(root, { cache });
    try {
      expect((await service.get('/m/@c/c@1.0.0/styles/m2')).text, 'the sheet of m2 after a restart').to.equal(stylesBefore);
      expect(await shown(new URL('/preview/', service.url).href)).to.deep.equal(expected);
    } finally {
      await service.close();
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });

  it("styles each element by its own rules from core dist's page, served by a plain static server", async function () {
    const out = path.join(root, 'dist');
    const result = await distribute({ root, out });
    expect(result.invalid).to.deep.equal([]);
    const server: http.Server = await staticServer(out, null);
    try {
      const { port } = server.address() as { port: number };
      expect(await shown(`http://127.0.0.1:${port}/`)).to.deep.equal(expected);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
