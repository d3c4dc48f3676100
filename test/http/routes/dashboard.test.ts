// `GET /state/details`'s code frames (README "Code frames"): the lines around each diagnostic,
// only while the file holds what the build that reported it read.
import { expect } from 'chai';
import type { Details } from '../../../src/dashboard/details.js';
import type { HttpContext } from '../../../src/http/context.js';
import type { Readiness } from '../../../src/http/readiness.js';
import { dashboardRoutes } from '../../../src/http/routes/dashboard.js';
import { SOURCE_CHANGED } from '../../../src/io/source-frames.js';
import { createBuildHistory } from '../../../src/store/build-history.js';
import type { ServiceState } from '../../../src/store/state.js';
import { BUILT_LINE, FRAMED_FILE, framedWorkspace, SAVED_LINE, SAVED_TEXT } from '../../helpers/framed-state.js';

// The route over a settled state, answering a context of its own (it sets headers, a type and a body).
async function detailsOf(root: string, state: ServiceState): Promise<{ body: string; details: Details }> {
  const readiness = { settled: async () => state } as unknown as Readiness;
  const routes = dashboardRoutes({ root, readiness, history: createBuildHistory(), cdnOrigin: null, previewAddress: () => null });
  const ctx = { set() {}, type: '', body: '' } as unknown as HttpContext;
  await routes.details(ctx);
  return { body: ctx.body as string, details: JSON.parse(ctx.body as string) as Details };
}

describe('the dashboard route /state/details', function () {
  it("frames a diagnostic's place from the file its build read", async function () {
    const { root, state } = framedWorkspace();
    const { details } = await detailsOf(root, state);
    expect(details.frames?.[`${FRAMED_FILE}:2`]).to.include(`> 2 | ${BUILT_LINE}`);
  });

  it('says the file changed, and shows none of its new lines, when it was saved after that build', async function () {
    const { root, state } = framedWorkspace(SAVED_TEXT);
    const { body, details } = await detailsOf(root, state);
    expect(details.frames).to.deep.equal({ [`${FRAMED_FILE}:2`]: SOURCE_CHANGED });
    expect(body).to.not.include(SAVED_LINE);
  });
});
