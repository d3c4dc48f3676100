// Installed CommonJS code through the local CDN, run in Chromium (README "The local CDN"): a
// CommonJS package's `require` of another package gives what Node's would (a CommonJS module's
// `module.exports`, an ES module's namespace), an optional dependency required in a `try` is
// caught as absent; an ES module entry's `export *` of a CommonJS file gives its names; a
// `require` of another export of the same package runs that export's one copy (one registry,
// `instanceof` true); a package TypeScript compiled to CommonJS (`__esModule`) gives its names and
// its `exports.default`.
import { expect } from 'chai';
import { chromiumForSuite, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { commonJsCompiledWorkspace, commonJsOwnExportsWorkspace, commonJsRequiresWorkspace, commonJsStarWorkspace, COMPILED_SHOWN, OWN_EXPORTS_SHOWN, REQUIRES_SHOWN, STAR_SHOWN } from '../helpers/commonjs-cdn-workspace.js';

const CASES = [
  { title: "a CommonJS package's require of other packages", workspace: commonJsRequiresWorkspace, expected: REQUIRES_SHOWN },
  { title: "an ES module entry's export * of a CommonJS file", workspace: commonJsStarWorkspace, expected: STAR_SHOWN },
  { title: "a CommonJS file's require of its package's other exports", workspace: commonJsOwnExportsWorkspace, expected: OWN_EXPORTS_SHOWN },
  { title: 'CommonJS compiled from TypeScript (__esModule)', workspace: commonJsCompiledWorkspace, expected: COMPILED_SHOWN },
];

describe('CommonJS at the local CDN, in Chromium', function () {
  const browser = chromiumForSuite();

  async function shown(url: string): Promise<{ text: string | undefined; errors: string[]; failed: string[] }> {
    const watched = await openPage(browser());
    try {
      await watched.page.goto(url, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body?.dataset.shown !== undefined, undefined, { timeout: 15_000 }).catch(() => undefined);
      return { text: await watched.page.evaluate(() => document.body?.dataset.shown), errors: watched.errors, failed: watched.failed };
    } finally {
      await watched.page.close();
    }
  }

  for (const { title, workspace, expected } of CASES) {
    describe(title, function () {
      let service: Awaited<ReturnType<typeof serve>>;

      before(async function () {
        service = await serve(workspace(), { cdnOrigin: 'local' });
      });
      after(async function () {
        await service?.close();
      });

      for (const address of ['/preview/', '/preview/bundled/']) {
        it(`runs on ${address}, giving what Node gives`, async function () {
          expect(await shown(new URL(address, service.url).href)).to.deep.equal({ text: expected, errors: [], failed: [] });
        });
      }
    });
  }
});
