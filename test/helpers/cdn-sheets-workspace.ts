// A workspace whose preview loads installed sheets that `@import` another package's sheet by its
// bare name (README "The local CDN"): `comp`'s code imports `comp.css`, which imports
// `tokens/tokens.css` and then `./local.css` of its own; `theme` publishes `theme.css` (a
// stylesheet export), which imports `tokens/tokens.css` too. The tokens sheet colours each
// element red by the same selector as the importing sheets' own rules, which make it green: only
// CSS's order (the imported sheet's rules first) decides.
import { tempWorkspace } from './workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** The colour each element has when the cascade is CSS's: the importing sheets' rules win. */
export const GREEN = 'rgb(0, 128, 0)';

export function cdnSheetsWorkspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app'], preview: '@cs/app/main' }),
    'packages/app/package.json': json({ name: '@cs/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { comp: '1.0.0', theme: '1.0.0' } }),
    'packages/app/main/index.ts': [
      "import { label } from 'comp';",
      "import 'theme/theme.css';",
      "document.body.insertAdjacentHTML('beforeend', '<p id=\"comp\">' + label + '</p><p id=\"local\">local</p><p id=\"theme\">theme</p>');",
      "document.body.dataset.shown = 'yes';",
      '',
    ].join('\n'),
    'node_modules/comp/package.json': json({ name: 'comp', version: '1.0.0', type: 'module', exports: './index.js', dependencies: { tokens: '1.0.0' } }),
    'node_modules/comp/index.js': "import './comp.css';\nexport const label = 'comp';\n",
    'node_modules/comp/comp.css': "@import 'tokens/tokens.css';\n@import './local.css';\n#comp { color: rgb(0, 128, 0); }\n",
    'node_modules/comp/local.css': '#local { color: rgb(0, 128, 0); }\n',
    'node_modules/theme/package.json': json({ name: 'theme', version: '1.0.0', exports: { './theme.css': './theme.css' }, dependencies: { tokens: '1.0.0' } }),
    'node_modules/theme/theme.css': "@import 'tokens/tokens.css';\n#theme { color: rgb(0, 128, 0); }\n",
    'node_modules/tokens/package.json': json({ name: 'tokens', version: '1.0.0' }),
    'node_modules/tokens/tokens.css': '#comp, #local, #theme { color: rgb(255, 0, 0); }\n',
  });
}
