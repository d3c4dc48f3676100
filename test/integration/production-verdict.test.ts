// A module's production build judged in its report (README "Addresses", "The local CDN"): code
// only production takes (a name no browser defines, an undeclared bare import, a Node global
// under `process.env.NODE_ENV === 'production'`) fails that build alone. A package left out of
// development by `core select` runs its production build on /preview/ through the local CDN, so
// `/state` and `/preview/entry.json` judge it before the page is opened; any other module's
// production build, once asked for at `?env=production` and failed, makes it invalid too, until
// an edit makes that verdict stale. Without a selection no production build is made unasked.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';
import { write } from '../helpers/edit.js';

interface Line {
  specifier: string;
  status: string;
  invalidImports?: string[];
  diagnostics: { kind: string; message: string; env?: string }[];
}

/** Each case: the source of `@demo/lib/x`, and the kind its production build alone reports. */
const CASES = {
  global: { source: "declare const __ANALYTICS__: any;\nexport let x = 'x';\nif (import.meta.env.PROD) { x = __ANALYTICS__.id; }\n", kind: 'BUNDLE_ERROR' },
  bare: { source: "export let x: any = 'x';\nif (import.meta.env.PROD) { x = await import('left-pad'); }\n", kind: 'DEPENDENCY_NOT_DECLARED' },
  env: { source: "export let x: any = 'x';\nif (process.env.NODE_ENV === 'production') { x = process.env.API_URL; }\n", kind: 'BUNDLE_ERROR' },
} as const;

const FIXED = "export const x = 'x';\n";

function workspace(source: string, selected: boolean): string {
  return inlineWorkspace(
    {
      'packages/app': {
        manifest: { name: '@demo/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts' }, dependencies: { '@demo/lib': '1.0.0' } },
        files: { 'main.ts': "import { x } from '@demo/lib/x';\nimport { ok } from '@demo/lib/ok';\nexport const shown = [x, ok];\n" },
      },
      'packages/lib': {
        manifest: { name: '@demo/lib', version: '1.0.0', type: 'module', exports: { './x': './x.ts', './ok': './ok.ts' } },
        files: { 'x.ts': source, 'ok.ts': "export const ok = import.meta.env.PROD ? 'production' : 'development';\n" },
      },
    },
    {
      'core.json': JSON.stringify({ packages: ['packages/app', 'packages/lib'], preview: '@demo/app/main' }),
      ...(selected ? { '.core/selection.json': JSON.stringify({ packages: ['@demo/app'] }) } : {}),
    },
  );
}

type Served = Awaited<ReturnType<typeof serve>>;

const linesOf = async (service: Served): Promise<Record<string, Line>> => {
  const { modules } = (await service.get('/state')).json<{ modules: Line[] }>();
  return Object.fromEntries(modules.map((line) => [line.specifier, line]));
};

/** The production variants the service started building, from its event log. */
const productionBuilds = async (service: Served): Promise<string[]> =>
  (await service.get('/log')).text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { type: string; variant?: string; modules?: { module: string }[] })
    .filter((event) => event.type === 'build.started' && event.variant?.includes('production'))
    .flatMap((event) => event.modules!.map(({ module }) => module));

describe("a module's production build in its report", function () {
  for (const [name, { source, kind }] of Object.entries(CASES)) {
    describe(`code only production takes (${name})`, function () {
      it('makes a module of a package left out of development invalid in /state and named in /preview/entry.json, before any page asks for it', async function () {
        const service = await serve(workspace(source, true), { cdnOrigin: 'local' });
        try {
          const lines = await linesOf(service);
          expect(lines['@demo/lib/x']!.status).to.equal('invalid');
          const production = lines['@demo/lib/x']!.diagnostics.filter((problem) => problem.env === 'production');
          expect(production.map((problem) => problem.kind)).to.deep.equal([kind]);
          // The development build of the same module is fine: nothing of its own is listed.
          expect(lines['@demo/lib/x']!.diagnostics.filter((problem) => problem.env === undefined && problem.kind !== 'BUNDLE_WARNING')).to.deep.equal([]);
          expect(lines['@demo/lib/ok']!.status).to.equal('valid');
          // The importer's page loads that build through the local CDN, and fails on it.
          expect([lines['@demo/app/main']!.status, lines['@demo/app/main']!.invalidImports]).to.deep.equal(['valid', ['@demo/lib/x']]);
          const preview = (await service.get('/preview/entry.json')).json<{ diagnostics: { kind: string; module?: string; env?: string }[] }>();
          expect(preview.diagnostics.map(({ kind: found, module, env }) => ({ kind: found, module, env }))).to.deep.equal([{ kind, module: '@demo/lib/x', env: 'production' }]);
          // What the report says is what the page's request meets.
          expect((await service.get('/m/@demo/lib@1.0.0/modules/x?env=production')).status).to.equal(422);
          expect((await service.get('/m/@demo/lib@1.0.0/modules/ok?env=production')).status).to.equal(200);
        } finally {
          await service.close();
        }
      });

      it('makes any module invalid once its production address was asked for and failed, until an edit makes that verdict stale', async function () {
        const root = workspace(source, false);
        const service = await serve(root);
        try {
          expect((await linesOf(service))['@demo/lib/x']!.status).to.equal('valid');
          // No selection: no production build the workspace did not ask for.
          expect(await productionBuilds(service)).to.deep.equal([]);
          expect((await service.get('/m/@demo/lib@1.0.0/modules/x?env=production')).status).to.equal(422);
          const failed = (await linesOf(service))['@demo/lib/x']!;
          expect(failed.status).to.equal('invalid');
          expect(failed.diagnostics.filter((problem) => problem.env === 'production').map((problem) => problem.kind)).to.deep.equal([kind]);
          const preview = (await service.get('/preview/entry.json')).json<{ diagnostics: { kind: string; module?: string; env?: string }[] }>();
          expect(preview.diagnostics.map(({ kind: found, module, env }) => ({ kind: found, module, env }))).to.deep.equal([{ kind, module: '@demo/lib/x', env: 'production' }]);
          write(root, 'packages/lib/x.ts', FIXED);
          expect((await linesOf(service))['@demo/lib/x']!.status).to.equal('valid');
          expect((await service.get('/m/@demo/lib@1.0.0/modules/x?env=production')).status).to.equal(200);
          const fixed = (await linesOf(service))['@demo/lib/x']!;
          expect([fixed.status, fixed.diagnostics]).to.deep.equal(['valid', []]);
        } finally {
          await service.close();
        }
      });
    });
  }

  it("tells the importer of a left-out module whose production build fails only while the local CDN serves that build, and no longer once it is fixed", async function () {
    const root = workspace(CASES.global.source, true);
    const local = await serve(root, { cdnOrigin: 'local' });
    try {
      expect((await linesOf(local))['@demo/app/main']!.invalidImports).to.deep.equal(['@demo/lib/x']);
      write(root, 'packages/lib/x.ts', FIXED);
      const fixed = await linesOf(local);
      expect([fixed['@demo/lib/x']!.status, fixed['@demo/app/main']!.status, fixed['@demo/app/main']!.invalidImports]).to.deep.equal(['valid', 'valid', undefined]);
    } finally {
      await local.close();
    }
    // Another origin's page loads that origin's build of the package, of which nothing is known here.
    const remoteRoot = workspace(CASES.global.source, true);
    const remote = await serve(remoteRoot, { cdnOrigin: 'https://cdn.test' });
    try {
      const lines = await linesOf(remote);
      expect([lines['@demo/lib/x']!.status, lines['@demo/app/main']!.status, lines['@demo/app/main']!.invalidImports]).to.deep.equal(['invalid', 'valid', undefined]);
    } finally {
      await remote.close();
    }
  });

  it('judges a package left out by a selection made while the service runs, and no production build before it', async function () {
    const root = workspace(CASES.global.source, false);
    const service = await serve(root, { cdnOrigin: 'local' });
    try {
      expect((await linesOf(service))['@demo/lib/x']!.status).to.equal('valid');
      expect(await productionBuilds(service)).to.deep.equal([]);
      write(root, '.core/selection.json', JSON.stringify({ packages: ['@demo/app'] }));
      const lines = await linesOf(service);
      expect([lines['@demo/lib/x']!.status, lines['@demo/lib/ok']!.status, lines['@demo/app/main']!.status]).to.deep.equal(['invalid', 'valid', 'valid']);
      expect([...new Set(await productionBuilds(service))].sort()).to.deep.equal(['@demo/lib/ok', '@demo/lib/x']);
      // Fixed while left out: built again for production at once, and valid.
      write(root, 'packages/lib/x.ts', FIXED);
      const fixed = (await linesOf(service))['@demo/lib/x']!;
      expect([fixed.status, fixed.diagnostics]).to.deep.equal(['valid', []]);
    } finally {
      await service.close();
    }
  });
});
