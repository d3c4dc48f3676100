// A workspace whose packages map bare names to `false` in their package.json's `browser` field
// (README "Bundling real code", "The local CDN"): an installed CommonJS package requiring `fs`, an
// installed ES module importing `crypto`, and a workspace package importing `fs`; the CommonJS
// package's `browser` maps its entry file too (`./index.js` to `./browser.js`). The preview
// entry shows what each gives, so a page proves that none of them reached the browser.
import { tempWorkspace } from './workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** What the preview entry writes into `document.body.dataset.shown` when the names are empty modules. */
export const BROWSER_FALSE_SHOWN = 'cjs-browser:object|esm:object:web|lib:object';

export function browserFalseWorkspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app', 'packages/lib'], preview: '@bf/app/main' }),
    'packages/app/package.json': json({ name: '@bf/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { 'cjs-off': '1.0.0', 'esm-off': '1.0.0', '@bf/lib': '1.0.0' } }),
    'packages/app/main/index.ts': "import cjs from 'cjs-off';\nimport esm from 'esm-off';\nimport { lib } from '@bf/lib/uses-fs';\ndocument.body.dataset.shown = [cjs, esm, lib].join('|');\n",
    'packages/lib/package.json': json({ name: '@bf/lib', version: '1.0.0', exports: { './uses-fs': './uses-fs/index.ts' }, browser: { fs: false } }),
    'packages/lib/uses-fs/index.ts': "import * as fs from 'fs';\nexport const lib = 'lib:' + typeof fs;\n",
    'node_modules/cjs-off/package.json': json({ name: 'cjs-off', version: '1.0.0', main: 'index.js', browser: { './index.js': './browser.js', fs: false } }),
    'node_modules/cjs-off/index.js': "const fs = require('fs');\nmodule.exports = 'cjs-node:' + typeof fs;\n",
    'node_modules/cjs-off/browser.js': "const fs = require('fs');\nmodule.exports = 'cjs-browser:' + typeof fs;\n",
    'node_modules/esm-off/package.json': json({ name: 'esm-off', version: '1.0.0', type: 'module', main: 'index.js', browser: { './node.js': './web.js', crypto: false } }),
    'node_modules/esm-off/index.js': "import * as crypto from 'crypto';\nimport { kind } from './node.js';\nexport default 'esm:' + typeof crypto + ':' + kind;\n",
    'node_modules/esm-off/node.js': "export const kind = 'node';\n",
    'node_modules/esm-off/web.js': "export const kind = 'web';\n",
  });
}
