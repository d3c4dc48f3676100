// Shared files (README "Shared files"): a file that several public modules of one package reach
// is built once, at an address of its own, and each module imports it there instead of bundling
// a copy; HELPER_SHARED is left for a copy that is really made.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { CoreEvent } from '../../src/store/events.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { tempWorkspace, writeFile } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const DEV = 'target=browser&format=esm&env=development&min=false&sourcemap=inline&types=false&css=false';

const registryWorkspace = (extra: Record<string, string> = {}) =>
  tempWorkspace({
    'core.json': json({ packages: ['packages/lib'] }),
    'packages/lib/package.json': json({ name: '@r/lib', version: '1.0.0', exports: { './define.js': './define.ts', './lookup.js': './lookup.ts', './other.js': './other.ts' } }),
    'packages/lib/registry.ts': 'export const registry = new Map<string, unknown>();\n',
    'packages/lib/define.ts': "import { registry } from './registry.ts';\nexport function define(name: string, value: unknown) {\n  registry.set(name, value);\n}\n",
    'packages/lib/lookup.ts': "import { registry } from './registry.js';\nexport const lookup = (name: string) => registry.get(name);\n",
    'packages/lib/other.ts': 'export const other = 1;\n',
    ...extra,
  });

describe('a file several modules of a package reach', function () {
  this.timeout(30_000);

  it('is built once at an address of its own, imported by each module, which stay valid without a warning', async () => {
    const service = await serve(registryWorkspace());
    try {
      const report = await service.report();
      expect(report.modules.map((m) => [m.specifier, m.status, m.warnings ?? []])).to.deep.equal([
        ['@r/lib/define.js', 'valid', []],
        ['@r/lib/lookup.js', 'valid', []],
        ['@r/lib/other.js', 'valid', []],
      ]);
      for (const subpath of ['define.js', 'lookup.js']) {
        const code = (await service.get(`/m/@r/lib@1.0.0/modules/${subpath}?${DEV}`)).text;
        expect(code, subpath).to.include('from "@r/lib/.shared/registry.ts"');
        expect(code, subpath).to.not.include('new Map');
      }
      const shared = await service.get(`/m/@r/lib@1.0.0/modules/.shared/registry.ts?${DEV}`);
      expect(shared.status).to.equal(200);
      expect(shared.text).to.include('new Map');
      // A module that reaches no shared file is built as it always was.
      expect((await service.get(`/m/@r/lib@1.0.0/modules/other.js?${DEV}`)).text).to.not.include('.shared');
    } finally {
      await service.close();
    }
  });

  it('becomes shared when a second module starts importing it, and an edit of it is seen at the next request', async () => {
    const root = registryWorkspace({ 'packages/lib/lookup.ts': 'export const lookup = (name: string) => undefined;\n' });
    const service = await serve(root);
    try {
      expect((await service.get(`/m/@r/lib@1.0.0/modules/define.js?${DEV}`)).text).to.include('new Map');
      writeFile(root, 'packages/lib/lookup.ts', "import { registry } from './registry.ts';\nexport const lookup = (name: string) => registry.get(name);\n");
      const report = await service.report();
      expect(report.modules.map((m) => m.warnings ?? [])).to.deep.equal([[], [], []]);
      for (const subpath of ['define.js', 'lookup.js']) expect((await service.get(`/m/@r/lib@1.0.0/modules/${subpath}?${DEV}`)).text, subpath).to.include('from "@r/lib/.shared/registry.ts"');
      writeFile(root, 'packages/lib/registry.ts', 'export const registry = new WeakMap<object, unknown>();\n');
      expect((await service.get(`/m/@r/lib@1.0.0/modules/.shared/registry.ts?${DEV}`)).text).to.include('new WeakMap');
    } finally {
      await service.close();
    }
  });

  it('is restored from the build cache with the modules that import it, and served without a build', async () => {
    const root = registryWorkspace();
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cache-'));
    try {
      const first = await serve(root, { cache, effectDeps: (deps) => ({ ...deps, persistDelayMs: 20 }) });
      await first.report();
      const before = (await first.get(`/m/@r/lib@1.0.0/modules/.shared/registry.ts?${DEV}`)).text;
      await waitFor(() => fs.existsSync(path.join(cache, 'builds.json')) && JSON.parse(fs.readFileSync(path.join(cache, 'builds.json'), 'utf8')).entries.length === 3, { what: 'the cache written' });
      await first.close();

      const second = await serve(root, { cache });
      const report = await second.report();
      expect(report.modules.map((m) => [m.status, m.warnings ?? []])).to.deep.equal([['valid', []], ['valid', []], ['valid', []]]);
      expect((await second.get(`/m/@r/lib@1.0.0/modules/.shared/registry.ts?${DEV}`)).text).to.equal(before);
      // Restored, not rebuilt: every module came from the cache with the shared file it imports, and nothing was built.
      const events = second.internals.log.events();
      const restored = events.find((event): event is Extract<CoreEvent, { type: 'cache.restored' }> => event.type === 'cache.restored');
      expect(restored?.builds.filter((build) => build.outputs.chunks?.['@r/lib/.shared/registry.ts']).map((build) => build.module).sort()).to.deep.equal(['@r/lib/define.js', '@r/lib/lookup.js']);
      expect(events.filter((event) => event.type === 'build.started')).to.deep.equal([]);
      await second.close();
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });

  it('is built once for production too, minified, at its production address', async () => {
    const service = await serve(registryWorkspace());
    try {
      const production = 'target=browser&format=esm&env=production&min=true&sourcemap=none&types=false&css=false';
      const define = await service.get(`/m/@r/lib@1.0.0/modules/define.js?${production}`);
      expect(define.status).to.equal(200);
      expect(define.text).to.include('"@r/lib/.shared/registry.ts"').and.not.include('new Map');
      const shared = await service.get(`/m/@r/lib@1.0.0/modules/.shared/registry.ts?${production}`);
      expect(shared.status).to.equal(200);
      expect(shared.text).to.include('new Map').and.not.include('//');
    } finally {
      await service.close();
    }
  });

  it('answers OUTPUT_NOT_AVAILABLE for a shared address no module imports', async () => {
    const service = await serve(registryWorkspace());
    try {
      const answer = await service.get(`/m/@r/lib@1.0.0/modules/.shared/other.ts?${DEV}`);
      expect(answer.status).to.equal(404);
      expect(answer.text).to.include('OUTPUT_NOT_AVAILABLE');
    } finally {
      await service.close();
    }
  });

  it('refuses as a module address does: another version, a cross-site read of development output, a v= naming bytes not kept', async () => {
    const service = await serve(registryWorkspace());
    try {
      const shared = (query: string, headers?: Record<string, string>) => service.get(`/m/@r/lib@1.0.0/modules/.shared/registry.ts?${query}`, headers);
      expect((await shared(DEV)).status).to.equal(200);
      const version = await service.get(`/m/@r/lib@2.0.0/modules/.shared/registry.ts?${DEV}`);
      expect([version.status, version.json<{ code: string; message: string }>().code]).to.deep.equal([404, 'OUTPUT_NOT_AVAILABLE']);
      expect(version.json<{ message: string }>().message).to.include('@r/lib is at version 1.0.0, not 2.0.0');
      const crossSite = await shared(DEV, { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' });
      expect([crossSite.status, crossSite.json<{ code: string }>().code]).to.deep.equal([403, 'CROSS_SITE_REFUSED']);
      const earlier = await shared(`target=browser&format=esm&env=production&min=true&sourcemap=none&types=false&css=false&v=${'A'.repeat(22)}`);
      expect([earlier.status, earlier.json<{ code: string }>().code]).to.deep.equal([404, 'OUTPUT_NOT_AVAILABLE']);
      expect(earlier.json<{ message: string }>().message).to.include('names an earlier build of @r/lib/.shared/registry.ts, which is no longer kept');
    } finally {
      await service.close();
    }
  });
});
