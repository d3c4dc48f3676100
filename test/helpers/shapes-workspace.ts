// A workspace of every way real packages publish: an extensionless `*` target spanning
// directories, sources beside plain `.js` files, a package without `exports` imported deeply
// (its outDir in tsconfig.build.json), a package whose sources only a monorepo root's tsconfig
// `paths` names, and a plugin that declares its host in `peerDependencies`. Its preview entry
// imports one module of each and writes what each exports on the page.
import { tempWorkspace } from './workspace.js';

/** What the page shows once every module ran. */
export const SHAPES_SHOWN = 'components-button mixed-typed mixed-plain open-root open-filled-button geo-source host-plugin';

const json = (value: unknown) => JSON.stringify(value, null, 2);

export function shapesWorkspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app', 'packages/components', 'packages/mixed', 'packages/open', 'packages/geo', 'packages/host', 'packages/plugin'], preview: '@shape/app/main' }),
    'tsconfig.json': json({ compilerOptions: { paths: { '@shape/geo': ['./packages/geo/src/index.ts'] } } }),
    'packages/components/package.json': json({ name: '@shape/components', version: '1.0.0', exports: { './components/*': './dist/components/*' } }),
    'packages/components/tsconfig.json': json({ compilerOptions: { outDir: 'dist', rootDir: 'src' } }),
    'packages/components/src/components/button/button.ts': "export const button = 'components-button';\n",
    'packages/mixed/package.json': json({ name: '@shape/mixed', version: '1.0.0', exports: { './*.js': './lib/*.js' } }),
    'packages/mixed/lib/typed.ts': "export const typed = 'mixed-typed';\n",
    'packages/mixed/lib/plain.js': "export const plain = 'mixed-plain';\n",
    'packages/open/package.json': json({ name: '@shape/open', version: '1.0.0', main: 'lib/index.js', scripts: { build: 'tsc -p tsconfig.build.json' } }),
    'packages/open/tsconfig.build.json': json({ compilerOptions: { outDir: 'lib', rootDir: 'src' } }),
    'packages/open/src/index.ts': "export const open = 'open-root';\n",
    'packages/open/src/button/filled-button.ts': "export const filled = 'open-filled-button';\n",
    'packages/open/src/extra/direct.ts': "export const direct = 'open-direct';\n",
    'packages/geo/package.json': json({ name: '@shape/geo', version: '1.0.0', module: 'dist/geo.mjs', main: 'dist/geo.cjs' }),
    'packages/geo/src/index.ts': "export const geo = 'geo-source';\n",
    'packages/host/package.json': json({ name: '@shape/host', version: '2.1.0', exports: { '.': './index.ts' } }),
    'packages/host/index.ts': "export const host = 'host';\n",
    'packages/plugin/package.json': json({ name: '@shape/plugin', version: '1.0.0', exports: { '.': './index.ts' }, peerDependencies: { '@shape/host': '^2.0.0' } }),
    'packages/plugin/index.ts': "import { host } from '@shape/host';\nexport const plugin = `${host}-plugin`;\n",
    'packages/app/package.json': json({
      name: '@shape/app',
      version: '1.0.0',
      exports: { './main': './main/index.ts' },
      dependencies: { '@shape/components': '*', '@shape/mixed': '*', '@shape/open': '*', '@shape/geo': '*', '@shape/plugin': '*' },
    }),
    'packages/app/main/index.ts': [
      "import { button } from '@shape/components/components/button/button.js';",
      "import { typed } from '@shape/mixed/typed.js';",
      "import { plain } from '@shape/mixed/plain.js';",
      "import { open } from '@shape/open';",
      "import { filled } from '@shape/open/lib/button/filled-button.js';",
      "import { geo } from '@shape/geo';",
      "import { plugin } from '@shape/plugin';",
      'export const all = [button, typed, plain, open, filled, geo, plugin];',
      // What the browser tests read: every module ran, in one page.
      "document.body.dataset.shapes = all.join(' ');",
      '',
    ].join('\n'),
  });
}

