// The programmatic API of README "The event log, replay and state subscription", imported by the package's own name as a tool would.
import { expect } from 'chai';
import { firstValueFrom, filter } from 'rxjs';
import { fixtureWorkspace } from '../helpers/fixtures.js';

describe("import { startService } from '@core-js/packages'", () => {
  it('starts the service in-process with url, state$, events$, report() and close()', async () => {
    const api = (await import('@core-js/packages')) as typeof import('../../src/index.js');
    const service = await api.startService({ root: fixtureWorkspace('basic'), port: 0, logger: () => {} });
    try {
      expect(service.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const types: string[] = [];
      const subscription = service.events$.subscribe((event) => types.push(event.type));
      const settled = await firstValueFrom(service.state$.pipe(filter((state) => Object.keys(state.builds).length === 5)));
      expect(settled.workspace.packages.map((p) => p.name)).to.deep.equal(['@acme/app', '@acme/lib']);
      const report = await service.report();
      expect(report.modules.map((m) => `${m.specifier}=${m.status}`)).to.deep.equal([
        '@acme/app/main=valid',
        '@acme/app/templates=valid',
        '@acme/lib/format=valid',
        '@acme/lib/server=valid',
        '@acme/lib/widgets/badge=valid',
      ]);
      const answer = await fetch(`${service.url}state`);
      expect(await answer.json()).to.deep.equal(JSON.parse(JSON.stringify(report)));
      // A request for an output never built is a fact on events$.
      await fetch(`${service.url}m/@acme/lib@1.2.0/modules/format?env=production`);
      subscription.unsubscribe();
      expect(types).to.include.members(['output.requested', 'build.started', 'build.succeeded']);
    } finally {
      await service.close();
    }
  });
});
