// The watcher's first walk waits for the requests the service is answering (README "Links and
// large trees"): wired from the HTTP app's count of requests to the watch effect.
import { expect } from 'chai';
import { fixtureWorkspace } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the first walk of the watcher', function () {
  it('starts once no request has been answered for a while after the first builds, not while they come', async function () {
    let walks = 0;
    const service = await serve(fixtureWorkspace('basic'), {
      // A wide quiet time against requests 20 ms apart: a busy machine cannot make it look quiet.
      effectDeps: (deps) => ({ ...deps, walkQuietMs: 400, createWatcher: (...args) => ((walks += 1), deps.createWatcher(...args)) }),
    });
    await service.report();
    const until = Date.now() + 1_200;
    while (Date.now() < until) {
      expect((await service.get('/state')).status).to.equal(200);
      await wait(20);
    }
    expect(walks, 'while requests are being answered').to.equal(0);
    for (let waited = 0; walks === 0 && waited < 5_000; waited += 20) await wait(20);
    expect(walks).to.equal(1);
  });
});
