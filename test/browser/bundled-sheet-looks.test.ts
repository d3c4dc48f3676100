// The bundled preview's sheet (README "The bundled preview"): the runtime asks its plain address
// for the current hash when a message may have changed it. A new connection hears the warnings of
// every module at once; a page of many modules with warnings must not ask once per module, all
// at the same time: one ask at a time, each seeing the messages before it.
import { expect } from 'chai';
import { chromiumForSuite, openPage, until } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';

const NAMES = ['a', 'b', 'c', 'd', 'e', 'f'];

function workspace(): string {
  const files: Record<string, string> = {};
  const exports: Record<string, string> = { './main': './main.ts' };
  for (const name of NAMES) {
    // esbuild warns about a comparison with -0: each module has a warning.
    files[`${name}.ts`] = `export const ${name} = (x: number) => x === -0;\n`;
    exports[`./${name}`] = `./${name}.ts`;
  }
  files['main.ts'] = `${NAMES.map((name) => `import { ${name} } from '@demo/app/${name}';`).join('\n')}\ndocument.body.dataset.shown = String([${NAMES.join(', ')}].length);\n`;
  files['main.css'] = 'body { color: rgb(1, 2, 3); }\n';
  files['main.ts'] = `import './main.css';\n${files['main.ts']}`;
  return inlineWorkspace({ 'packages/app': { manifest: { name: '@demo/app', version: '1.0.0', type: 'module', exports }, files } }, { 'core.json': JSON.stringify({ packages: ['packages/app'], preview: '@demo/app/main' }) });
}

describe('the bundled sheet, looked at when the page connects', function () {
  const browser = chromiumForSuite();

  it('is asked for one look at a time, however many modules of the page have warnings', async function () {
    const service = await serve(workspace());
    const watched = await openPage(browser());
    // Counted in the page, from the call of fetch to its answer: what the runtime awaits.
    await watched.page.addInitScript(() => {
      const looks = { started: 0, open: 0, most: 0 };
      (globalThis as unknown as { looks: typeof looks }).looks = looks;
      const original = globalThis.fetch;
      globalThis.fetch = async (input, init) => {
        const look = init?.method === 'HEAD' && new URL(String(input), location.href).pathname === '/preview/bundled/styles.css';
        if (!look) return original(input, init);
        looks.started += 1;
        looks.open += 1;
        looks.most = Math.max(looks.most, looks.open);
        try {
          return await original(input, init);
        } finally {
          looks.open -= 1;
        }
      };
    });
    const looks = () => watched.page.evaluate(() => (globalThis as unknown as { looks: { started: number; open: number; most: number } }).looks);
    try {
      await watched.page.goto(new URL('/preview/bundled/', service.url).href, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body.dataset.shown === '6');
      await until(() => watched.messages.filter((message) => message.type === 'warnings').length >= NAMES.length, 'the warnings of every module', 15_000);
      // The page has handled the messages once it answers after them; then the looks they started end.
      await watched.page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
      await watched.page.waitForFunction(() => {
        const counted = (globalThis as unknown as { looks: { started: number; open: number } }).looks;
        return counted.started > 0 && counted.open === 0;
      });
      const counted = await looks();
      expect(counted.most, `${counted.started} looks`).to.equal(1);
      expect(counted.started).to.be.below(NAMES.length + 1);
      expect(watched.errors).to.deep.equal([]);
    } finally {
      await watched.page.close();
      await service.close();
    }
  });
});
