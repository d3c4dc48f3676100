// The order both preview pages link stylesheets in (README "Preview and stylesheet push"): the
// cascade every bundler joins sheets in, what a module imports before the module's own sheet, so
// an app's own rule overrides the library rule it imports first; a CDN's sheet at its place in it.
import { expect } from 'chai';
import { derivePreview } from '../../src/development/preview.js';
import { renderPreviewPage } from '../../src/development/preview-page.js';
import { defaultVariantKey } from '../../src/store/selectors.js';
import type { ModuleModel } from '../../src/workspace/model.js';
import { fold, moduleModel, started, startedBuild, succeeded, workspaceModel } from '../helpers/models.js';

const withSheet = (build: number, module: ModuleModel, imports: string[]) =>
  succeeded(build, module, defaultVariantKey(module), `entry-${build}`, {
    outputs: { code: { hash: `code-${build}`, size: 10 }, styles: { hash: `styles-${build}`, size: 10 } },
    imports: imports.map((specifier) => ({ specifier, file: module.entry! })),
  });

describe('the stylesheet cascade of the preview', () => {
  // main imports the library's button, then its theme (which imports the button too), then a UI
  // kit a CDN serves; admin, of main's package, is never imported by it.
  const main = moduleModel('main');
  const admin = moduleModel('admin');
  const button = moduleModel('button', { package: '@t/lib' });
  const theme = moduleModel('theme', { package: '@t/lib' });
  const workspace = workspaceModel([admin, main, button, theme], { preview: '@t/app/main' });
  workspace.packages[0]!.dependencies = { uikit: '1.0.0' };
  const modules = [admin, main, button, theme];
  const state = fold([
    started,
    { type: 'workspace.read', workspace },
    ...modules.map((module, at) => startedBuild(at + 1, defaultVariantKey(module), [{ module, generation: 1 }])),
    withSheet(1, admin, []),
    withSheet(2, main, ['@t/lib/button', '@t/lib/theme', 'uikit/sheet.css']),
    withSheet(3, button, []),
    withSheet(4, theme, ['@t/lib/button']),
  ]);
  const derived = derivePreview(state, { cdnOrigin: 'https://cdn.test', installed: () => null });
  if (!derived.ok) throw new Error(derived.message);
  const { preview } = derived;

  it('lists what a module imports before it, depth first in import order, then the modules of the entry package the entry never imports', () => {
    expect(preview.modules.map((module) => module.specifier)).to.deep.equal(['@t/lib/button', '@t/lib/theme', '@t/app/main', '@t/app/admin']);
  });

  it('links a CDN sheet at its place on /preview/, before the sheet of the module importing it', () => {
    const page = renderPreviewPage({ ...preview, stylesheets: [{ specifier: 'uikit/sheet.css', href: 'https://cdn.test/uikit@1.0.0/sheet.css' }] }, '/u/runtime.js', { instance: 'run', seq: 1 });
    const linked = [...page.matchAll(/data-core-(?:cdn-)?styles="([^"]+)"/g)].map((match) => match[1]);
    expect(linked).to.deep.equal(['@t/lib@1.0.0/button', '@t/lib@1.0.0/theme', 'uikit/sheet.css', '@t/app@1.0.0/main', '@t/app@1.0.0/admin']);
  });
});
