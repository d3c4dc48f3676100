// Fault injection into the callbacks that are no effect: the freshness pass (run from the event
// loop), the dispatch of the check's and the requests' facts, the build history's subscription.
// Each throw is an `effect.failed` event and a line on the terminal; the service keeps answering.
import { statSync, type Stats } from 'node:fs';
import { expect } from 'chai';
import type { ServiceOptions } from '../../src/service.js';
import type { CoreEvent, Facts } from '../../src/store/events.js';
import { DEV, fixtureWorkspace, PROD } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { writeFile } from '../helpers/workspace.js';

const MAIN = `/m/@acme/app@1.0.0/modules/main?${DEV}`;
const helper = (marker: string) => `export const HELPER_MARKER = '${marker}';\nexport function greet(): string {\n  return HELPER_MARKER;\n}\n`;

async function served(options: ServiceOptions = {}) {
  const reported: string[] = [];
  const root = fixtureWorkspace('basic');
  const service = await serve(root, { watch: false, logger: (line) => void reported.push(line), ...options });
  const failures = () =>
    service.internals.log
      .events()
      .filter((event): event is Extract<CoreEvent, { type: 'effect.failed' }> => event.type === 'effect.failed')
      .map((event) => [event.effect, event.message]);
  return { service, root, reported, failures };
}

describe('callback faults', () => {
  it('freshness: a pass that throws (from the event loop) is reported, its request answered, and the next pass sees the disk', async () => {
    let armed = false;
    // A stat whose answer fails when read: a defect inside hashing, past its own error handling.
    const failing = new Proxy({}, { get: () => { throw new Error('INJECTED stat'); } }) as Stats;
    const { service, root, reported, failures } = await served({ fileHashes: { stat: (absolute) => (armed ? failing : statSync(absolute, { throwIfNoEntry: false })) } });
    try {
      expect((await service.get(MAIN)).status).to.equal(200);
      // Every build done: nothing but the injected path reads the disk meanwhile.
      await service.report();
      armed = true;
      expect((await service.get(MAIN)).status).to.equal(200);
      armed = false;
      // One failure per pass: the answer cache's, and the route's if the state moved meanwhile.
      expect(failures()).to.not.be.empty;
      expect(new Set(failures().map((failure) => failure.join(': ')))).to.deep.equal(new Set(['freshness: INJECTED stat']));
      expect(reported.join('\n')).to.include('the freshness callback failed: INJECTED stat');
      writeFile(root, 'packages/app/main/helper.ts', helper('AFTER_FAULT'));
      expect((await service.get(MAIN)).text).to.contain('AFTER_FAULT');
    } finally {
      await service.close();
    }
  });

  it('a reducer defect on a fact of the check is reported, and the next check dispatches it again', async () => {
    const { service, root, failures } = await served();
    try {
      expect((await service.get(MAIN)).status).to.equal(200);
      // Every build done: nothing but the injected path reads the disk meanwhile.
      await service.report();
      const { store } = service.internals;
      const reduce = store.dispatch.bind(store);
      let defects = 0;
      store.dispatch = (facts: Facts) => {
        const fact = Array.isArray(facts) ? facts[0] : facts;
        if (fact?.type === 'files.changed' && fact.source === 'check' && defects++ === 0) throw new Error('INJECTED reducer');
        return reduce(facts);
      };
      writeFile(root, 'packages/app/main/helper.ts', helper('AFTER_DEFECT'));
      expect((await service.get(MAIN)).status, 'answered, though the change was lost').to.equal(200);
      expect(failures()).to.deep.equal([['reducer', 'reducing "files.changed": INJECTED reducer']]);
      expect((await service.get(MAIN)).text).to.contain('AFTER_DEFECT');
    } finally {
      await service.close();
    }
  });

  it('a request whose fact cannot be reduced answers 500 INTERNAL_ERROR instead of waiting for ever', async () => {
    const { service, failures } = await served();
    try {
      const { store } = service.internals;
      const reduce = store.dispatch.bind(store);
      store.dispatch = (facts: Facts) => {
        const fact = Array.isArray(facts) ? facts[0] : facts;
        if (fact?.type === 'output.requested') throw new Error('INJECTED reducer');
        return reduce(facts);
      };
      const production = await service.get(`/m/@acme/app@1.0.0/modules/main?${PROD}`);
      expect(production.status).to.equal(500);
      expect(production.json().code).to.equal('INTERNAL_ERROR');
      expect(failures()).to.deep.equal([['reducer', 'reducing "output.requested": INJECTED reducer']]);
      expect((await service.get(MAIN)).status).to.equal(200);
    } finally {
      await service.close();
    }
  });

  it('history: a throw of its subscription is reported, and the history goes on with the next event', async () => {
    const { service, root, reported, failures } = await served();
    try {
      expect((await service.get(MAIN)).status).to.equal(200);
      // Every build done: nothing but the injected path reads the disk meanwhile.
      await service.report();
      const { history } = service.internals;
      const add = history.add.bind(history);
      let thrown = 0;
      history.add = (...args) => {
        if (thrown++ === 0) throw new Error('INJECTED history');
        return add(...args);
      };
      writeFile(root, 'packages/app/main/helper.ts', helper('AFTER_HISTORY'));
      expect((await service.get(MAIN)).text).to.contain('AFTER_HISTORY');
      expect(failures()).to.deep.equal([['history', 'INJECTED history']]);
      expect(reported.join('\n')).to.include('the history callback failed: INJECTED history');
      expect((await service.get('/state')).status).to.equal(200);
    } finally {
      await service.close();
    }
  });
});
