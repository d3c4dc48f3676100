// An installed package whose exports import one another's entry files, as published packages do
// (lit-html's `directives/*.js` import `../directive.js` and `../lit-html.js`, both exports; README
// "The local CDN"): a relative import, an `#imports` one, one by the package's own name, and files
// a pattern export (`./directives/*`) matches. Each entry file counts its runs in a registry the
// root export holds, so a page shows whether any ran twice.
import { tempWorkspace } from './workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** What the preview entry writes into `document.body.dataset.shown` when every file of the package ran once. */
export const SHARED_EXPORTS_SHOWN = 'registry=index,widgets,directive,class-map,style-map instanceof=true';

export function sharedExportsWorkspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app'], preview: '@se/app/main' }),
    'packages/app/package.json': json({ name: '@se/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { regpkg: '1.0.0' } }),
    'packages/app/main/index.ts': `import { registry, Base } from 'regpkg';
import { register, Widget } from 'regpkg/widgets';
import { StyleMap } from 'regpkg/directives/style-map.js';
document.body.dataset.shown = 'registry=' + registry.join(',') + ' instanceof=' + (new Widget() instanceof Base && new StyleMap() instanceof Base && register === registry.register);
`,
    'node_modules/regpkg/package.json': json({
      name: 'regpkg',
      version: '1.0.0',
      type: 'module',
      exports: { '.': './index.js', './widgets': './widgets.js', './directive.js': './directive.js', './directives/*': './directives/*' },
      imports: { '#registry': './index.js' },
    }),
    'node_modules/regpkg/index.js': "export const registry = ['index'];\nexport class Base {}\n",
    'node_modules/regpkg/widgets.js': "import { registry, Base } from './index.js';\nexport function register(name) { registry.push(name); }\nregistry.register = register;\nregister('widgets');\nexport class Widget extends Base {}\n",
    'node_modules/regpkg/directive.js': "import { Base } from '#registry';\nimport { register } from 'regpkg/widgets';\nregister('directive');\nexport class Directive extends Base {}\n",
    'node_modules/regpkg/directives/class-map.js': "import { Directive } from '../directive.js';\nimport { register } from '../widgets.js';\nregister('class-map');\nexport class ClassMap extends Directive {}\n",
    'node_modules/regpkg/directives/style-map.js': "import { ClassMap } from './class-map.js';\nimport { register } from '../widgets.js';\nregister('style-map');\nexport class StyleMap extends ClassMap {}\n",
  });
}
