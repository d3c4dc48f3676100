// Imports of another public module's entry that esbuild resolves by a tsconfig `baseUrl`
// (`'src/reg'`, or from the workspace's root: `'packages/lib/src/reg'`), by a tsconfig `paths`
// alias that reads as a package name (`'lib/reg'`, `'registry'`, `'@acme/ui'`), through a
// symbolic link to its folder or file (`'./alias'`), by a folder's package.json (`main`,
// `module`) or with a query (README "Bundling real code"): one copy of that module on the page.
// Each registry defines a custom element, which throws when a second copy runs: on /preview/,
// /preview/bundled/ and core dist's page.
import fs from 'node:fs';
import path from 'node:path';
import { chromiumForSuite } from '../helpers/chromium.js';
import { itSharesOneCopyOnEveryPage } from '../helpers/registry-pages.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const registry = (tag: string) => `export const reg: string[] = [];\ncustomElements.define('x-${tag}', class extends HTMLElement {});\n`;

// Each importer's spelling, and the registry module it reaches.
const SPELLINGS: Record<string, [spelling: string, registry: string]> = {
  baseUrl: ['src/reg', 'reg'],
  baseUrlFile: ['src/reg/index.js', 'reg'],
  main: ['./regmain', 'regmain'],
  module: ['./regmodule/', 'regmodule'],
  query: ['./reg/index.ts?v=2', 'reg'],
  pathsStar: ['lib/reg', 'reg'],
  pathsStarFile: ['lib/regmain/lib/index.js', 'regmain'],
  pathsName: ['registry', 'reg'],
  linkedFolder: ['./alias', 'reg'],
  linkedFolderFile: ['./alias/index.js', 'reg'],
  linkedFile: ['./regfile.js', 'reg'],
  baseUrlSlash: ['src/reg/', 'reg'],
  pathsSlash: ['lib/reg/', 'reg'],
  pathsTs: ['lib/reg/index.ts', 'reg'],
  indexWritten: ['./reg/index', 'reg'],
  linkedSlash: ['./alias/', 'reg'],
  linkedFileTs: ['./regfile.ts', 'reg'],
  linkedFileBare: ['./regfile', 'reg'],
  baseUrlLinked: ['src/alias', 'reg'],
  pathsLinked: ['lib/alias/index.js', 'reg'],
};
// Symbolic links inside the package to a registry's folder and to its entry file.
const LINKS: Record<string, string> = { 'packages/lib/src/alias': 'reg', 'packages/lib/src/regfile.ts': 'reg/index.ts' };
// The app's imports by its own tsconfig `paths` that read as package names, leading into the
// other package: `lib/*` to its sources, `@acme/ui` to a folder whose package.json names an entry.
const APP_ALIASES: Record<string, string> = { appStar: 'lib/regmodule', appScoped: '@acme/ui', appRoot: 'packages/lib/src/reg', appRootFile: 'packages/lib/src/regmain/lib/index.js' };
const REGISTRIES = ['reg', 'regmain', 'regmodule'];

function workspace(): string {
  const files: Record<string, string> = {
    'core.json': json({ packages: ['packages/lib', 'packages/app'], preview: '@demo/app/main' }),
    'packages/lib/package.json': json({
      name: '@demo/lib',
      version: '1.0.0',
      type: 'module',
      exports: {
        './reg': './src/reg/index.ts',
        './regmain': './src/regmain/lib/index.ts',
        './regmodule': './src/regmodule/lib/index.ts',
        ...Object.fromEntries(Object.keys(SPELLINGS).map((name) => [`./${name}`, `./src/${name}.ts`])),
      },
    }),
    'packages/lib/tsconfig.json': json({ compilerOptions: { baseUrl: '.', paths: { 'lib/*': ['src/*'], registry: ['src/reg'] }, allowImportingTsExtensions: true, noEmit: true } }),
    'packages/app/tsconfig.json': json({ compilerOptions: { baseUrl: '../..', paths: { 'lib/*': ['packages/lib/src/*'], '@acme/ui': ['packages/lib/src/regmain'] } } }),
    'packages/lib/src/reg/index.ts': registry('reg'),
    'packages/lib/src/regmain/package.json': json({ main: 'lib/index.ts' }),
    'packages/lib/src/regmain/lib/index.ts': registry('regmain'),
    'packages/lib/src/regmodule/package.json': json({ module: 'lib/index.ts' }),
    'packages/lib/src/regmodule/lib/index.ts': registry('regmodule'),
    'packages/app/package.json': json({ name: '@demo/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts' }, dependencies: { '@demo/lib': '1.0.0' } }),
    'packages/app/main.ts': [
      ...REGISTRIES.map((name) => `import { reg as ${name} } from '@demo/lib/${name}';`),
      ...Object.keys(SPELLINGS).map((name) => `import '@demo/lib/${name}';`),
      ...Object.entries(APP_ALIASES).map(([name, alias], index) => `import { reg as alias${index} } from '${alias}';\nalias${index}.push('${name}');`),
      `document.body.dataset.shown = [${REGISTRIES.join(', ')}].flat().sort().join(',');`,
      '',
    ].join('\n'),
  };
  for (const [name, [spelling]] of Object.entries(SPELLINGS)) files[`packages/lib/src/${name}.ts`] = `import { reg } from '${spelling}';\nreg.push('${name}');\n`;
  const root = tempWorkspace(files);
  for (const [link, target] of Object.entries(LINKS)) fs.symlinkSync(target, path.join(root, link));
  return root;
}

const EVERY_ONE = [...Object.keys(SPELLINGS), ...Object.keys(APP_ALIASES)].sort().join(',');

describe('modules importing another module\'s entry by baseUrl, by paths, through a link, by a folder\'s package.json or with a query, in Chromium', function () {
  const browser = chromiumForSuite();

  itSharesOneCopyOnEveryPage(browser, workspace, EVERY_ONE, 30_000);
});
