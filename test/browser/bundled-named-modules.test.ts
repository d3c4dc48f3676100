// A joined module asked for by a name the code computes (`import('@p/b/' + name)`) or resolved by
// `import.meta.resolve` runs on the bundled page as on `/preview/` (README "The bundled preview"):
// the import map names it, and what answers is the one script's run of it, never a second one.
import { expect } from 'chai';
import { bundledPageSuite, json, moduleAt } from '../helpers/bundled-page.js';

describe('a joined module imported by a computed name, on the bundled page in Chromium', function () {
  const page = bundledPageSuite({
    'core.json': json({ packages: ['packages/a', 'packages/b'], preview: '@p/a/main' }),
    'packages/b/package.json': json({ name: '@p/b', version: '1.0.0', type: 'module', core: { modules: 'src' } }),
    ...moduleAt('packages/b/src/card'),
    'packages/b/src/card/index.ts': [
      "((globalThis as any).ORDER ??= []).push('card');",
      "export const state = { clicks: 0 };",
      "export default function label() { return 'x-card'; }",
      "export * from '@p/b/extra';",
      "export { extra as again } from '@p/b/extra';",
      "export * as extras from '@p/b/extra';",
      '',
    ].join('\n'),
    ...moduleAt('packages/b/src/extra'),
    'packages/b/src/extra/index.ts': "export const extra = 'from extra';\n",
    ...moduleAt('packages/b/src/lazy'),
    'packages/b/src/lazy/index.ts': "((globalThis as any).ORDER ??= []).push('lazy');\nexport const lazy = true;\n",
    'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', type: 'module', core: { modules: 'src' }, dependencies: { '@p/b': '1.0.0' } }),
    ...moduleAt('packages/a/src/main'),
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

  const shown = async (address: string) => {
    const { text, errors, imports, preloads } = await page.shown(address);
    return { shown: text === null ? null : (JSON.parse(text) as Record<string, unknown>), errors, map: imports, preloads };
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
    const answer = await fetch(new URL(bundled.map['@p/b/card']!, page.service().url));
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.match(/^text\/javascript/);
    const gone = await fetch(new URL(bundled.map['@p/b/card']!.replace(/key=[^&]+/, 'key=0000'), page.service().url));
    expect(gone.status).to.equal(404);
  });
});

describe('a joined module asked for by name before the bundled script ran it, in Chromium', function () {
  const page = bundledPageSuite({
    'core.json': json({ packages: ['packages/a', 'packages/b'], preview: '@p/a/main' }),
    'packages/b/package.json': json({ name: '@p/b', version: '1.0.0', type: 'module', core: { modules: 'src' } }),
    // Exports nothing and is imported before an installed package: it stays separate, and runs before the script.
    ...moduleAt('packages/b/src/setup'),
    'packages/b/src/setup/index.ts': "try {\n  await import('@p/b/' + ['util'][0]!);\n  (globalThis as any).SETUP = 'ran';\n} catch (error) {\n  (globalThis as any).SETUP = (error as Error).message;\n}\n",
    ...moduleAt('packages/b/src/util'),
    'packages/b/src/util/index.ts': "((globalThis as any).UTIL_RUNS ??= []).push('util');\nexport const shout = (text: string) => text.toUpperCase();\n",
    'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', type: 'module', core: { modules: 'src' }, dependencies: { '@p/b': '1.0.0', client: '1.0.0' } }),
    ...moduleAt('packages/a/src/main'),
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

  const shown = async (address: string) => {
    const { text, errors } = await page.shown(address);
    return { shown: text === null ? null : (JSON.parse(text) as Record<string, unknown>), errors };
  };

  it('fails with an error saying the script has not run it yet, and never runs a second copy', async function () {
    const preview = await shown('/preview/');
    expect(preview.shown, preview.errors.join(' | ')).to.deep.equal({ setup: 'ran', runs: 1, shouted: 'API' });
    const bundled = await shown('/preview/bundled/');
    expect(bundled.shown, bundled.errors.join(' | ')).to.deep.equal({ setup: "@p/b/util is joined into the bundled preview's script, which has not run it yet", runs: 1, shouted: 'API' });
  });
});
