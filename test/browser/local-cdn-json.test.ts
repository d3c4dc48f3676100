// An installed package's JSON export at the local CDN (README "The local CDN"): imported with
// `with { type: 'json' }` the browser asks for JSON (`Sec-Fetch-Dest: json`) and gets the file's
// JSON; imported plainly (as esbuild and Vite accept) it gets the module. Both run in Chromium.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { openPreview, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe('an installed package\'s JSON export at the local CDN, in Chromium', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let browser: Browser | undefined;
  let watched: Watched;

  before(async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/a'], preview: '@p/a/main' }),
      'packages/a/package.json': json({ name: '@p/a', version: '1.0.0', type: 'module', core: { modules: 'src' }, dependencies: { countries: '1.0.0' } }),
      'packages/a/src/main/module.json': json({ entry: 'index.ts' }),
      'packages/a/src/main/index.ts': [
        "import attributed from 'countries/data.json' with { type: 'json' };",
        "import plain from 'countries/names.json';",
        "const done = document.createElement('p');",
        "done.id = 'done';",
        "done.textContent = `${attributed.fr} ${plain.de}`;",
        'document.body.append(done);',
        '',
      ].join('\n'),
      'node_modules/countries/package.json': json({ name: 'countries', version: '1.0.0', type: 'module', exports: { '.': './index.js', './data.json': './data.json', './names.json': './names.json' } }),
      'node_modules/countries/index.js': 'export const n = 1;\n',
      'node_modules/countries/data.json': '{ "fr": "France" }\n',
      'node_modules/countries/names.json': '{ "de": "Germany" }\n',
    });
    service = await serve(root, { cdnOrigin: 'local' });
    ({ browser, watched } = await openPreview(service.url));
  });
  after(async function () {
    await browser?.close();
    await service?.close();
  });

  it('runs a page importing one JSON export with the attribute and another without', async function () {
    await watched.page.waitForSelector('#done', { state: 'attached', timeout: 30_000 }).catch(() => undefined);
    expect(watched.errors, watched.errors.join(' | ')).to.deep.equal([]);
    expect(await watched.page.textContent('#done')).to.equal('France Germany');
  });

  it('answers the file\'s JSON to a JSON module script\'s request, and the module to a script\'s, varying by them', async function () {
    const asJson = await service.get('/cdn/countries@1.0.0/data.json', { 'sec-fetch-dest': 'json', accept: 'application/json,*/*;q=0.5' });
    expect(asJson.status).to.equal(200);
    expect(asJson.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(asJson.text).to.equal('{ "fr": "France" }\n');
    expect(asJson.headers['vary']).to.equal('Sec-Fetch-Dest, Accept');
    const asScript = await service.get('/cdn/countries@1.0.0/data.json', { 'sec-fetch-dest': 'script', accept: '*/*' });
    expect(asScript.headers['content-type']).to.equal('text/javascript; charset=utf-8');
    expect(asScript.text).to.include('France');
    expect(asScript.headers['etag']).to.not.equal(asJson.headers['etag']);
  });
});
