// An installed package that loads one of its own files by `new URL('./worker.js',
// import.meta.url)` (README "The local CDN"): the local CDN joins it into one module, so the URL
// names a file it does not serve; the preview says so, as a PREVIEW_CDN_FILE_UNSERVED warning.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe('an installed package loading its own file by a relative URL, on the local CDN', function () {
  it('is a PREVIEW_CDN_FILE_UNSERVED warning of the preview naming the file, and no other package is', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'], preview: '@w/app/main' }),
      'packages/app/package.json': json({ name: '@w/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { wdep: '1.0.0', plain: '1.0.0' } }),
      'packages/app/main/index.ts': "import { run } from 'wdep';\nimport { plain } from 'plain';\nrun();\nplain();\n",
      'node_modules/wdep/package.json': json({ name: 'wdep', version: '1.0.0', type: 'module', exports: { '.': './index.js' } }),
      'node_modules/wdep/index.js': "export function run() { return new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }); }\nexport const base = import.meta.url;\n",
      'node_modules/wdep/worker.js': "postMessage('ok');\n",
      'node_modules/plain/package.json': json({ name: 'plain', version: '1.0.0', type: 'module', exports: { '.': './index.js' } }),
      'node_modules/plain/index.js': "export const plain = () => new URL('https://example.test/x', import.meta.url).href;\n",
    });
    const service = await serve(root, { cdnOrigin: 'local' });
    try {
      const entry = (await service.get('/preview/entry.json')).json<{ diagnostics: unknown[]; warnings?: Array<{ kind: string; module?: string; message: string }> }>();
      expect(entry.diagnostics).to.deep.equal([]);
      expect((entry.warnings ?? []).map(({ kind, module }) => [kind, module])).to.deep.equal([['PREVIEW_CDN_FILE_UNSERVED', 'wdep']]);
      expect(entry.warnings![0]!.message).to.include('"./worker.js"').and.to.include('/cdn/wdep@1.0.0').and.to.include('/cdn/worker.js');
      // The file it names is indeed not served.
      expect((await service.get('/cdn/worker.js')).status).to.be.within(400, 499);
    } finally {
      await service.close();
    }
  });
});
