// A package that drops its `exports` while running, or is listed anew without any, publishes
// every file (README "Exports and sources"): an importer whose last build already names one of its files deeply is valid at once,
// the file a module found on that read, and its first build told as a change (README "The build
// dashboard"), not left `invalid` ("names no file") until the importer happens to build again.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { tempWorkspace, writeFile } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
// Both workspaces: @p/app imports a file of @p/lib by its path, which @p/lib's exports do not publish.
const appImportingLibDeeply = {
  'packages/lib/src/index.ts': 'export const main = 1;\n',
  'packages/lib/src/sub.ts': 'export const sub = 2;\n',
  'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@p/lib': '*' } }),
  'packages/app/main/index.ts': "import { sub } from '@p/lib/src/sub.ts';\nexport const x = sub;\n",
};
const statusesOf = async (service: Awaited<ReturnType<typeof serve>>) =>
  Object.fromEntries((await service.report()).modules.map((module) => [module.specifier, module.status]));

describe('a deep import of a package that drops its exports while running', function () {
  this.timeout(60_000);

  it('is found on the read that opens the package: the importer valid, the file built as a change', async () => {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/lib', 'packages/app'] }),
      'packages/lib/package.json': json({ name: '@p/lib', version: '1.0.0', exports: { '.': './src/index.ts' } }),
      ...appImportingLibDeeply,
    });
    const service = await serve(root);
    try {
      expect(await statusesOf(service)).to.deep.equal({ '@p/lib': 'valid', '@p/app/main': 'invalid' });
      writeFile(root, 'packages/lib/package.json', json({ name: '@p/lib', version: '1.0.0', main: './src/index.ts' }));
      await waitFor(async () => JSON.stringify(await statusesOf(service)) === JSON.stringify({ '@p/lib': 'valid', '@p/lib/src/sub.ts': 'valid', '@p/app/main': 'valid' }), { what: 'the deep import found and every module valid' });
      const started = service.internals.log.events().flatMap((event) => (event.type === 'build.started' ? event.modules.map(({ module }) => `${module} ${event.reason}`) : []));
      // Built once, or once more when its first build read the package.json as it was being written (an unverified input).
      const sub = started.filter((line) => line.startsWith('@p/lib/src/sub.ts'));
      expect(sub).to.not.deep.equal([]);
      expect(new Set(sub)).to.deep.equal(new Set(['@p/lib/src/sub.ts change']));
    } finally {
      await service.close();
    }
  });

  it('is found on the read that lists such a package anew: its importer valid, the file a module', async () => {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      'packages/lib/package.json': json({ name: '@p/lib', version: '1.0.0', main: './src/index.ts' }),
      ...appImportingLibDeeply,
    });
    const service = await serve(root);
    try {
      expect(await statusesOf(service)).to.deep.equal({ '@p/app/main': 'valid' });
      writeFile(root, 'core.json', json({ packages: ['packages/app', 'packages/lib'] }));
      await waitFor(async () => JSON.stringify(await statusesOf(service)) === JSON.stringify({ '@p/app/main': 'valid', '@p/lib': 'valid', '@p/lib/src/sub.ts': 'valid' }), { what: 'the deep import found and every module valid' });
    } finally {
      await service.close();
    }
  });
});
