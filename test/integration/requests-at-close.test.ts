// A request still waiting when the service closes (SIGINT, SIGTERM, `close()`) is answered, not
// cut: 503 SERVICE_CLOSING, nothing logged (README "The programmatic API"). Before, a request
// waiting on the state got its connection closed with no answer, and the store's completion
// was logged as an internal error with its stack.
import { expect } from 'chai';
import { selectSettled } from '../../src/store/selectors.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const MODULES = 300;

/** A workspace whose first builds take a while: the requests below arrive long before they end. */
function slowWorkspace(): string {
  const files: Record<string, string> = {
    'core.json': JSON.stringify({ packages: ['packages/app'] }),
    'packages/app/package.json': JSON.stringify({ name: '@p/app', version: '1.0.0', core: { modules: 'src' } }),
  };
  for (let index = 0; index < MODULES; index += 1) {
    files[`packages/app/src/m${index}/module.json`] = JSON.stringify({ entry: 'index.ts' });
    files[`packages/app/src/m${index}/index.ts`] = `export const value${index} = ${index};\nexport function list() { return [${'1,'.repeat(2000)}]; }\n`;
  }
  return tempWorkspace(files);
}

describe('requests waiting when the service closes', function () {
  for (const address of ['/state', '/m/@p/app@1.0.0/modules/m250']) {
    it(`answers ${address} 503 SERVICE_CLOSING, logging nothing`, async function () {
      const logged: string[] = [];
      const service = await serve(slowWorkspace(), { logger: (message) => logged.push(message) });
      const arrived = new Promise((resolve) => service.internals.server.once('request', resolve));
      const answer = fetch(new URL(address, service.url)).then(
        async (response) => ({ status: response.status, body: await response.text() }),
        (error: Error) => ({ status: 0, body: `no answer: ${error.message}` }),
      );
      await arrived;
      expect(selectSettled(service.internals.store.getState()), 'the builds still running when the request came').to.equal(false);
      await service.close();
      const got = await answer;
      expect(got.status, got.body).to.equal(503);
      expect((JSON.parse(got.body) as { code: string }).code).to.equal('SERVICE_CLOSING');
      expect(logged.filter((line) => /internal error|\n\s+at /.test(line))).to.deep.equal([]);
    });
  }
});
