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
  it("links each module of the entry's package and each module they reach, once, in the preview's order: the package's in the workspace's order, then breadth first", function () {
    // Written in another order than the workspace lists them: the page follows the workspace's.
    const page = distributionPage(workspace, [written(main, [button.specifier, icon.specifier]), written(button, [icon.specifier]), written(icon, []), written(other, [icon.specifier, main.specifier])], { imports: {} });
    if (!page.ok) throw new Error(page.reason);
    expect(page.entry).to.equal(main.specifier);
    expect(links(page.html, 'modulepreload')).to.deep.equal(['@t/app@1.0.0/modules/other.js', '@t/app@1.0.0/modules/main.js', '@t/lib@1.0.0/modules/icon.js', '@t/lib@1.0.0/modules/button.js']);
    expect(links(page.html, 'stylesheet')).to.deep.equal(['@t/app@1.0.0/styles/other.css', '@t/app@1.0.0/styles/main.css', '@t/lib@1.0.0/styles/icon.css', '@t/lib@1.0.0/styles/button.css']);
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
