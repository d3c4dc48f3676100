// Every way real packages publish, served by a real service: an extensionless `*` target spanning
// directories, sources beside plain `.js` files, a package without `exports` imported deeply
// (its outDir in tsconfig.build.json), a package whose sources only a monorepo root's tsconfig
// `paths` names, and a plugin that declares its host in `peerDependencies`.
import { expect } from 'chai';
import { serve, stopAll } from '../helpers/service.js';
import { removeTemporaryDirs } from '../helpers/workspace.js';
import { shapesWorkspace } from '../helpers/shapes-workspace.js';

describe('every way real packages publish', function () {
  this.timeout(60_000);
  after(async () => {
    await stopAll();
    removeTemporaryDirs();
  });

  it('lists a module of each shape valid, the deep import of a package without exports on demand, and serves each', async function () {
    const service = await serve(shapesWorkspace());
    const report = await service.report();
    expect(report.diagnostics).to.deep.equal([]);
    expect(report.warnings ?? []).to.deep.equal([]);
    expect(report.modules.map((m) => [m.specifier, m.status, m.diagnostics])).to.deep.equal([
      ['@shape/app/main', 'valid', []],
      ['@shape/components/components/button/button.js', 'valid', []],
      ['@shape/mixed/plain.js', 'valid', []],
      ['@shape/mixed/typed.js', 'valid', []],
      ['@shape/open', 'valid', []],
      ['@shape/open/lib/button/filled-button.js', 'valid', []],
      ['@shape/geo', 'valid', []],
      ['@shape/host', 'valid', []],
      ['@shape/plugin', 'valid', []],
    ]);
    const served: [string, string][] = [
      ['components@1.0.0/modules/components/button/button.js', 'components-button'],
      ['mixed@1.0.0/modules/typed.js', 'mixed-typed'],
      ['mixed@1.0.0/modules/plain.js', 'mixed-plain'],
      ['open@1.0.0/modules/@root', 'open-root'],
      ['open@1.0.0/modules/lib/button/filled-button.js', 'open-filled-button'],
      ['geo@1.0.0/modules/@root', 'geo-source'],
      ['plugin@1.0.0/modules/@root', '"@shape/host"'],
    ];
    for (const [address, marker] of served) {
      const answer = await service.get(`/m/@shape/${address}`);
      expect(answer.status, address).to.equal(200);
      expect(answer.text, address).to.include(marker);
    }
    // Asked for by address before anything imports it: found on demand, with the same checks.
    const direct = await service.get('/m/@shape/open@1.0.0/modules/lib/extra/direct.js');
    expect(direct.status).to.equal(200);
    expect(direct.text).to.include('open-direct');
    expect((await service.report()).modules.find((m) => m.specifier === '@shape/open/lib/extra/direct.js')).to.include({ status: 'valid' });
    const wrongVersion = await service.get('/m/@shape/open@9.9.9/modules/lib/extra/other.js');
    expect(wrongVersion.status).to.equal(404);
    expect(service.internals.store.getState().deepImports).to.not.include('@shape/open/lib/extra/other.js');
    const missing = await service.get('/m/@shape/open@1.0.0/modules/lib/extra/missing.js');
    expect(missing.status).to.equal(404);
    expect(missing.text).to.include('OUTPUT_NOT_AVAILABLE');
    const entry = await service.get('/preview/entry.json');
    const { imports, diagnostics } = JSON.parse(entry.text) as { imports: Record<string, string>; diagnostics: unknown[] };
    expect(diagnostics).to.deep.equal([]);
    expect(imports['@shape/open/lib/button/filled-button.js']).to.match(/^\/m\/@shape\/open@1\.0\.0\/modules\/lib\/button\/filled-button\.js\?/);
  });

  it('records no deep import for a request it refuses as cross-site', async function () {
    const service = await serve(shapesWorkspace());
    await service.report();
    const refused = await service.get('/m/@shape/open@1.0.0/modules/lib/extra/direct.js', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' });
    expect(refused.status).to.equal(403);
    expect(refused.text).to.include('CROSS_SITE_REFUSED');
    expect(service.internals.store.getState().deepImports ?? []).to.not.include('@shape/open/lib/extra/direct.js');
  });
});
