// A module's production build judged in its report (README "Addresses"): code only production
// takes (a name no browser defines, an undeclared bare import, a Node global under
// `process.env.NODE_ENV === 'production'`) fails that build alone, and once asked for at
// `?env=production` and failed it makes the module invalid in `/state` and `/preview/entry.json`,
// until an edit makes that verdict stale. No production build is made unasked.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';
import { write } from '../helpers/edit.js';

interface Line {
  specifier: string;
  status: string;
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
});
