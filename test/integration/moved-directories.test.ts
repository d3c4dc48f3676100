// A directory moved out of the workspace whole, or back in (`mv`, a file manager, a checkout that
// renames): the watcher hears the rename of the directory only, nothing of the files it holds.
// The service still sees what it depended on in there change, without a request (README "Links
// and large trees"): an open page learns it from the push, not only at its next reload.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { filter, firstValueFrom, timeout } from 'rxjs';
import type { ServiceState } from '../../src/store/state.js';
import { awaitedWalk, serve } from '../helpers/service.js';
import { exampleWorkspace, tempWorkspace } from '../helpers/workspace.js';

describe('a directory moved out of the workspace and back, under a running service', function () {
  it('is seen gone, then back, with no request answered meanwhile', async function () {
    if (process.platform !== 'linux') this.skip();
    const root = exampleWorkspace();
    const away = path.join(tempWorkspace(), 'ui');
    const walk = awaitedWalk();
    const service = await serve(root, { effectDeps: walk.deps });
    await service.report();
    await walk.walked;
    const stateWhere = (test: (state: ServiceState) => boolean, what: string) =>
      firstValueFrom(service.state$.pipe(filter(test), timeout({ first: 10_000, with: () => Promise.reject(new Error(`the service never saw ${what}`)) })));
    const uiModules = (state: ServiceState) => state.workspace.modules.filter((module) => module.package === '@demo/ui').length;

    fs.renameSync(path.join(root, 'packages/ui'), away);
    const gone = await stateWhere((state) => uiModules(state) === 0, 'packages/ui moved away');
    expect(gone.workspace.diagnostics.map((d) => d.message)).to.deep.equal(['core.json lists the package directory "packages/ui", which has no package.json']);

    fs.renameSync(away, path.join(root, 'packages/ui'));
    const back = await stateWhere((state) => uiModules(state) === 2, 'packages/ui moved back');
    expect(back.workspace.diagnostics).to.deep.equal([]);
  });
});
