// Imports of another public module's entry that esbuild resolves by a tsconfig `paths` pattern
// the module's entry config does not hold (README "Bundling real code"): one of a config nearer to
// a file of the module than its entry's, a catch-all `"*"` pattern, and one a config's `extends`
// brings from an installed package in the workspace's node_modules. Each registry defines a custom
// element, which throws when a second copy runs, and every importer pushes its name into the one
// copy the page's public import holds: on /preview/, /preview/bundled/ and core dist's page.
import { chromiumForSuite } from '../helpers/chromium.js';
import { itSharesOneCopyOnEveryPage } from '../helpers/registry-pages.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const registry = (tag: string) => `export const reg: string[] = [];\ncustomElements.define('x-${tag}', class extends HTMLElement {});\n`;

function workspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/lib', 'packages/cat', 'packages/app'], preview: '@demo/app/main' }),
    'packages/lib/package.json': json({ name: '@demo/lib', version: '1.0.0', type: 'module', exports: { './reg': './src/reg/index.ts', './nearer': './src/nearer.ts' } }),
    'packages/lib/tsconfig.json': json({ compilerOptions: { strict: true } }),
    'packages/lib/src/reg/index.ts': registry('reg'),
    // The entry's config (packages/lib/tsconfig.json) has no paths; the one nearer to deep/use.ts has.
    'packages/lib/src/nearer.ts': "import './deep/use';\n",
    'packages/lib/src/deep/tsconfig.json': json({ compilerOptions: { paths: { 'near/*': ['../*'] } } }),
    'packages/lib/src/deep/use.ts': "import { reg } from 'near/reg';\nreg.push('nearerConfig');\n",
    // A catch-all pattern: 'element' is src/element.ts, another module's entry named alone.
    'packages/cat/package.json': json({ name: '@demo/cat', version: '1.0.0', type: 'module', exports: { './element': './src/element.ts', './use': './src/use.ts' } }),
    'packages/cat/tsconfig.json': json({ compilerOptions: { paths: { '*': ['./src/*'] } } }),
    'packages/cat/src/element.ts': registry('element'),
    'packages/cat/src/use.ts': "import { reg } from 'element';\nreg.push('catchAll');\n",
    // A config extending one of an installed package, whose paths lead into another package.
    'node_modules/@acme/tsconfig/package.json': json({ name: '@acme/tsconfig', version: '1.0.0' }),
    'node_modules/@acme/tsconfig/base.json': json({ compilerOptions: { paths: { 'shared/*': ['../../../packages/lib/src/*'] } } }),
    'packages/app/tsconfig.json': json({ extends: '@acme/tsconfig/base.json' }),
    'packages/app/package.json': json({ name: '@demo/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts' }, dependencies: { '@demo/lib': '1.0.0', '@demo/cat': '1.0.0' } }),
    'packages/app/main.ts': [
      "import { reg } from '@demo/lib/reg';",
      "import { reg as elements } from '@demo/cat/element';",
      "import '@demo/lib/nearer';",
      "import '@demo/cat/use';",
      "import { reg as shared } from 'shared/reg';",
      "shared.push('extendsInstalled');",
      "document.body.dataset.shown = [...reg, ...elements].sort().join(',');",
      '',
    ].join('\n'),
  });
}

const EVERY_ONE = 'catchAll,extendsInstalled,nearerConfig';

describe("modules importing another module's entry by a paths pattern of a nearer config, a catch-all pattern or an installed package's config, in Chromium", function () {
  this.timeout(300_000);
  const browser = chromiumForSuite();

  itSharesOneCopyOnEveryPage(browser, workspace, EVERY_ONE, 60_000);
});
