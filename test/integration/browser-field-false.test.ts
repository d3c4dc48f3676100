// A bare name a package.json's `browser` field maps to `false` (README "Bundling real code", "The
// local CDN"): an empty module in the workspace's builds and in the local CDN's bundles, so /state,
// the preview's import map and the code agree; an edit of the field builds again.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { browserFalseWorkspace } from '../helpers/browser-false-workspace.js';
import type { Report } from '../../src/store/selectors.js';

const statuses = (report: Report) => report.modules.map((m) => [m.specifier, m.status, m.diagnostics.map((d) => d.kind)]);

describe('a bare name the browser field maps to false', function () {
  it('is an empty module for a workspace package and an installed one; removing the mapping builds again', async function () {
    const root = browserFalseWorkspace();
    const service = await serve(root, { cdnOrigin: 'local' });
    try {
      expect(statuses(await service.report())).to.deep.equal([
        ['@bf/app/main', 'valid', []],
        ['@bf/lib/uses-fs', 'valid', []],
      ]);
      const entry = (await service.get('/preview/entry.json')).json<{ imports: Record<string, string>; diagnostics?: unknown[] }>();
      expect(entry.diagnostics ?? []).to.deep.equal([]);
      expect(Object.keys(entry.imports).sort()).to.deep.equal(['@bf/app/main', '@bf/lib/uses-fs', 'cjs-off', 'esm-off']);
      const esm = (await service.get(entry.imports['esm-off']!)).text;
      expect(esm).not.to.include('crypto');
      expect(esm).to.include('web');
      expect((await service.get(entry.imports['cjs-off']!)).text).not.to.match(/require|"fs"/);
      expect((await service.get(entry.imports['@bf/lib/uses-fs']!)).text).not.to.match(/from "fs"|from 'fs'/);

      // Without the mapping the name is a server built-in again, as before it.
      const libManifest = path.join(root, 'packages/lib/package.json');
      const lib = JSON.parse(fs.readFileSync(libManifest, 'utf8')) as { browser?: unknown };
      delete lib.browser;
      fs.writeFileSync(libManifest, JSON.stringify(lib, null, 2));
      const installedManifest = path.join(root, 'node_modules/esm-off/package.json');
      const installed = JSON.parse(fs.readFileSync(installedManifest, 'utf8')) as { browser: Record<string, unknown> };
      delete installed.browser.crypto;
      fs.writeFileSync(installedManifest, JSON.stringify(installed, null, 2));
      const broken = await waitFor(async () => {
        const next = await service.report();
        return next.modules.find((m) => m.specifier === '@bf/lib/uses-fs')?.status === 'invalid' && next;
      });
      expect(statuses(broken)[1]).to.deep.equal(['@bf/lib/uses-fs', 'invalid', ['PREVIEW_BUILTIN']]);
      const after = (await service.get('/preview/entry.json')).json<{ imports: Record<string, string> }>();
      expect((await service.get(after.imports['esm-off']!)).text).to.include('"crypto"');
    } finally {
      await service.close();
    }
  });
});
