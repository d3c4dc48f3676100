// Without CORE_CDN_ORIGIN the preview answers 503 PREVIEW_CDN_UNSET: a browser gets a page that
// explains it, a tool the JSON error of every other error.
import { expect } from 'chai';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';

describe('the preview without a CDN origin', function () {
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    service = await serve(fixtureWorkspace('basic'), { cdnOrigin: null });
  });
  after(async function () {
    await service?.close();
  });

  it('answers a browser 503 with a page naming the code and the fix', async function () {
    const page = await service.get('/preview/', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(page.status).to.equal(503);
    expect(page.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect(page.text).to.include('PREVIEW_CDN_UNSET');
    expect(page.text).to.include('CORE_CDN_ORIGIN=https://esm.sh core run');
    expect(page.text).to.include('CORE_CDN_ORIGIN=local core run');
  });

  it('answers a tool the JSON error', async function () {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const answer = await service.get('/preview/', accept ? { accept } : {});
      expect(answer.status).to.equal(503);
      expect(answer.json()).to.include({ code: 'PREVIEW_CDN_UNSET' });
    }
  });
});
