// The page core dist writes (README "Distribution: core dist"), from the written modules alone.
import { expect } from 'chai';
import { distributionPage } from '../../src/dist/distribution-page.js';
import type { DistributedKind, WrittenModule } from '../../src/dist/judge-module.js';
import type { ModuleModel } from '../../src/workspace/model.js';
import { moduleModel, workspaceModel } from '../helpers/models.js';

const file = (path: string, kind: DistributedKind) => ({ path, kind, content: new Uint8Array(), hash: 'h', size: 0 });
const written = (module: ModuleModel, imports: string[]): WrittenModule => ({
  status: 'written',
  module,
  target: 'browser',
  files: [file(`${module.subpath}.js`, 'code'), file(`${module.subpath}.css`, 'styles')],
  imports: imports.map((specifier) => ({ specifier, file: module.entry! })),
});

const other = moduleModel('other');
const main = moduleModel('main');
const button = moduleModel('button', { package: '@t/lib' });
const icon = moduleModel('icon', { package: '@t/lib' });
const broken = moduleModel('broken', { package: '@t/lib' });
const workspace = workspaceModel([other, main, button, icon, broken], { preview: main.specifier });
const links = (html: string, rel: string) => [...html.matchAll(new RegExp(`<link rel="${rel}" href="\\./([^"]+)">`, 'g'))].map((match) => match[1]);

describe('distributionPage', function () {
  it("links each module the entry reaches, once, in the preview's cascade: what a module imports before it, depth first in import order, then the package's other modules", function () {
    // main imports button, then icon, which button imports too; other, never imported by main, imports both.
    const page = distributionPage(workspace, [written(main, [button.specifier, icon.specifier]), written(button, [icon.specifier]), written(icon, []), written(other, [icon.specifier, main.specifier])], { imports: {} });
    if (!page.ok) throw new Error(page.reason);
    expect(page.entry).to.equal(main.specifier);
    expect(links(page.html, 'modulepreload')).to.deep.equal(['@t/lib@1.0.0/modules/icon.js', '@t/lib@1.0.0/modules/button.js', '@t/app@1.0.0/modules/main.js', '@t/app@1.0.0/modules/other.js']);
    expect(links(page.html, 'stylesheet')).to.deep.equal(['@t/lib@1.0.0/styles/icon.css', '@t/lib@1.0.0/styles/button.css', '@t/app@1.0.0/styles/main.css', '@t/app@1.0.0/styles/other.css']);
  });

  it('links the sheets of what a module imports only after its last import of its own sheet after that sheet, as the preview does', function () {
    // main imports its own sheet, then button (after it), then icon before anything: icon, main, button.
    const mainWritten = { ...written(main, []), imports: [{ specifier: button.specifier, file: main.entry!, afterSheet: true as const }, { specifier: icon.specifier, file: main.entry! }] };
    const page = distributionPage(workspace, [mainWritten, written(button, []), written(icon, [])], { imports: {} });
    if (!page.ok) throw new Error(page.reason);
    expect(links(page.html, 'stylesheet')).to.deep.equal(['@t/lib@1.0.0/styles/icon.css', '@t/app@1.0.0/styles/main.css', '@t/lib@1.0.0/styles/button.css']);
  });

  it('writes no page, naming the addresses, when a sheet it links names an address from the origin\'s root that no output written has', function () {
    const unserved = new Map([[button.specifier, ['/m/@t/lib@1.0.0/styles/gone']]]);
    const page = distributionPage(workspace, [written(main, [button.specifier]), written(button, [])], { imports: {} }, null, unserved);
    expect(page.ok).to.equal(false);
    expect(!page.ok && page.unserved).to.deep.equal(['/m/@t/lib@1.0.0/styles/gone']);
    expect(!page.ok && page.reason).to.contain(`${button.specifier} names /m/@t/lib@1.0.0/styles/gone`);
  });

  it('writes no page when the entry imports, itself or through a written module, a module of the workspace not written', function () {
    const page = distributionPage(workspace, [written(main, [button.specifier]), written(button, [broken.specifier, 'lit'])], { imports: {} });
    expect(page).to.deep.equal({ ok: false, reason: `the preview entry ${main.specifier} imports ${broken.specifier}, which was not written` });
  });

  it("writes the page when only another module of the entry's package imports a module not written", function () {
    const page = distributionPage(workspace, [written(other, [broken.specifier]), written(main, [])], { imports: {} });
    expect(page.ok).to.equal(true);
  });
});
