// A joined module asked for by a name the code computes (`import('@p/b/' + name)`) or resolved by
// `import.meta.resolve` runs on the bundled page as on `/preview/` (README "The bundled preview"):
// the import map names it, and what answers is the one script's run of it, never a second one.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const module = (entry: string) => ({ [`${entry}/module.json`]: json({ entry: 'index.ts' }) });

describe('a joined module imported by a computed name, on the bundled page in Chromium', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let browser: Browser | undefined;

  before(async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/a', 'packages/b'], preview: '@p/a/main' }),
      'packages/b/package.json': json({ name: '@p/b', version: '1.0.0', type: 'module', core: { modules: 'src' } }),
      ...module('packages/b/src/card'),
      'packages/b/src/card/index.ts': [
        "((globalThis as any).ORDER ??= []).push('card');",
        "export const state = { clicks: 0 };",
        "export default function label() { return 'x-card'; }",
        "export * from '@p/b/extra';",
        "export { extra as again } from '@p/b/extra';",
        "export * as extras from '@p/b/extra';",
        '',
      ].join('\n'),
      ...module('packages/b/src/extra'),
      'packages/b/src/extra/index.ts': "export const extra = 'from extra';\n",
      ...module('packages/b/src/lazy'),
      'packages/b/src/lazy/index.ts': "((globalThis as any).ORDER ??= []).push('lazy');\nexport const lazy = true;\n",
      'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', type: 'module', core: { modules: 'src' }, dependencies: { '@p/b': '1.0.0' } }),
      ...module('packages/a/src/main'),
      'packages/a/src/main/index.ts': [
        "import label, { state } from '@p/b/card';",
        "((globalThis as any).ORDER ??= []).push('main');",
        'state.clicks = 3;',
        "const name = ['card'][0]!;",
        'const shown: Record<string, unknown> = {};',
        'try {',
        "  const found = await import('@p/b/' + name);",
        '  shown.sameState = found.state === state;',
        '  shown.sameDefault = found.default === label;',
        '  shown.clicks = found.state.clicks;',
        '  shown.extra = found.extra;',
        '  shown.again = found.again;',
        "  shown.sameExtras = found.extras === (await import('@p/b/' + ['extra'][0]!));",
        "  shown.sameNamespace = (await import('@p/b/' + name)) === found;",
        "  shown.resolves = typeof import.meta.resolve('@p/b/card') === 'string';",
        "  await import('@p/b/lazy');",
        '} catch (error) {',
        '  shown.error = String(error);',
        '}',
        'shown.order = (globalThis as any).ORDER.join(\',\');',
        "const done = document.createElement('p');",
        "done.id = 'done';",
        'done.textContent = JSON.stringify(shown);',
        'document.body.append(done);',
        '',
      ].join('\n'),
    });
    service = await serve(root, { cdnOrigin: 'local' });
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  const shown = async (address: string) => {
    const watched = await openPage(browser!);
    await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
    await watched.page.waitForSelector('#done', { state: 'attached', timeout: 30_000 }).catch(() => undefined);
    const text = await watched.page.textContent('#done').catch(() => null);
    const map = await watched.page.evaluate(() => JSON.parse(document.querySelector('script[type="importmap"]')?.textContent ?? '{}') as { imports?: Record<string, string> });
    const preloads = await watched.page.evaluate(() => [...document.querySelectorAll('link[rel="modulepreload"]')].map((link) => link.getAttribute('href')));
    await watched.page.close();
    return { shown: text === null ? null : (JSON.parse(text) as Record<string, unknown>), errors: watched.errors, map: map.imports ?? {}, preloads };
  };

  const expected = { sameState: true, sameDefault: true, clicks: 3, extra: 'from extra', again: 'from extra', sameExtras: true, sameNamespace: true, resolves: true, order: 'card,main,lazy' };

  it('runs on both pages alike: the same module state, run once, and a module only imported later still runs later', async function () {
    const preview = await shown('/preview/');
    expect(preview.shown, preview.errors.join(' | ')).to.deep.equal(expected);
    const bundled = await shown('/preview/bundled/');
    expect(bundled.shown, bundled.errors.join(' | ')).to.deep.equal(expected);
  });

  it('names the joined modules the script runs in its import map, without preloading them', async function () {
    const bundled = await shown('/preview/bundled/');
    const named = Object.entries(bundled.map).filter(([, address]) => address.startsWith('/preview/bundled/module.js?'));
    expect(named.map(([specifier]) => specifier).sort()).to.deep.equal(['@p/a/main', '@p/b/card', '@p/b/extra']);
    expect(bundled.preloads.filter((address) => address?.startsWith('/preview/bundled/module.js'))).to.deep.equal([]);
    const answer = await fetch(new URL(bundled.map['@p/b/card']!, service.url));
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.match(/^text\/javascript/);
    const gone = await fetch(new URL(bundled.map['@p/b/card']!.replace(/key=[^&]+/, 'key=0000'), service.url));
    expect(gone.status).to.equal(404);
  });
});

describe('a joined module asked for by name before the bundled script ran it, in Chromium', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let browser: Browser | undefined;

  before(async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/a', 'packages/b'], preview: '@p/a/main' }),
      'packages/b/package.json': json({ name: '@p/b', version: '1.0.0', type: 'module', core: { modules: 'src' } }),
      // Exports nothing and is imported before an installed package: it stays separate, and runs before the script.
      ...module('packages/b/src/setup'),
      'packages/b/src/setup/index.ts': "try {\n  await import('@p/b/' + ['util'][0]!);\n  (globalThis as any).SETUP = 'ran';\n} catch (error) {\n  (globalThis as any).SETUP = (error as Error).message;\n}\n",
      ...module('packages/b/src/util'),
      'packages/b/src/util/index.ts': "((globalThis as any).UTIL_RUNS ??= []).push('util');\nexport const shout = (text: string) => text.toUpperCase();\n",
      'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', type: 'module', core: { modules: 'src' }, dependencies: { '@p/b': '1.0.0', client: '1.0.0' } }),
      ...module('packages/a/src/main'),
      'packages/a/src/main/index.ts': [
        "import '@p/b/setup';",
        "import { api } from 'client';",
        "import { shout } from '@p/b/util';",
        "const done = document.createElement('p');",
        "done.id = 'done';",
        'done.textContent = JSON.stringify({ setup: (globalThis as any).SETUP, runs: (globalThis as any).UTIL_RUNS.length, shouted: shout(api) });',
        'document.body.append(done);',
        '',
      ].join('\n'),
      'node_modules/client/package.json': json({ name: 'client', version: '1.0.0', type: 'module', exports: './index.js' }),
      'node_modules/client/index.js': "export const api = 'api';\n",
    });
    service = await serve(root, { cdnOrigin: 'local' });
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  const shown = async (address: string) => {
    const watched = await openPage(browser!);
    await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
    await watched.page.waitForSelector('#done', { state: 'attached', timeout: 30_000 }).catch(() => undefined);
    const text = await watched.page.textContent('#done').catch(() => null);
    await watched.page.close();
    return { shown: text === null ? null : (JSON.parse(text) as Record<string, unknown>), errors: watched.errors };
  };

  it('fails with an error saying the script has not run it yet, and never runs a second copy', async function () {
    const preview = await shown('/preview/');
    expect(preview.shown, preview.errors.join(' | ')).to.deep.equal({ setup: 'ran', runs: 1, shouted: 'API' });
    const bundled = await shown('/preview/bundled/');
    expect(bundled.shown, bundled.errors.join(' | ')).to.deep.equal({ setup: "@p/b/util is joined into the bundled preview's script, which has not run it yet", runs: 1, shouted: 'API' });
  });
});
