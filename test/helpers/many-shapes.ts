// A workspace, as a map of files, of the many ways a package declares its modules (README
// "Workspaces", "Exports and sources"): plain `exports`, targets mapped through outDir and a
// tsconfig chain, `*` patterns of code and sheets, a package without `exports` imported deeply,
// `paths` of a root tsconfig, module.json files (broken, alone, nested under another package),
// a name two packages write, a missing package.json, bad targets, a selection. What the model of a
// read pins (test/workspace/read-workspace-model.test.ts).
const json = (value: unknown) => JSON.stringify(value);

/** Bare imports of files of the package without `exports`, as builds report them. */
export const MANY_SHAPES_DEEP_IMPORTS = ['@many/open/lib/util/helper.js', '@many/open/lib/util/absent.js', '@many/plain/m0'];

export function manyShapesFiles(): Record<string, string> {
  const files: Record<string, string> = {
    'core.json': json({
      packages: ['packages/plain', 'packages/built', 'packages/pattern', 'packages/open', 'packages/modules', 'packages/paths', 'packages/twin', 'packages/twin2', 'packages/absent', 'packages/bad'],
      preview: '@many/plain/m0',
    }),
    'tsconfig.json': json({ compilerOptions: { paths: { '@many/paths': ['./packages/paths/src/index.ts'] } } }),
    'tsconfig.base.json': '{ // shared\n "compilerOptions": { "rootDir": "src", }, }',
    '.core/selection.json': json({ packages: ['@many/plain', '@many/built'] }),
  };
  const plainExports: Record<string, string> = {};
  for (let index = 0; index < 6; index++) {
    plainExports[`./m${index}`] = `./m${index}/index.ts`;
    files[`packages/plain/m${index}/index.ts`] = `export const m = ${index};\n`;
    files[`packages/plain/m${index}/style.css`] = `.m${index} { color: red; }\n`;
  }
  files['packages/plain/package.json'] = json({ name: '@many/plain', version: '1.2.0', exports: { ...plainExports, './sheet': './m0/style.css', './gone': './gone/index.ts', './data': './data.json' }, dependencies: { '@many/built': '^1.0.0' } });
  files['packages/plain/m1/module.json'] = json({ platforms: ['node'], assets: ['style.css', 'missing.png'] });
  files['packages/plain/m2/module.json'] = '{ "platforms": ["web", "moon"] ';
  files['packages/built/package.json'] = json({ name: '@many/built', version: '1.0.0', exports: { '.': './dist/index.js', './a': { source: './src/a.ts', default: './dist/a.js' }, './missing': './dist/missing.js', './package.json': './package.json' } });
  files['packages/built/tsconfig.json'] = json({ extends: '../../tsconfig.base.json', compilerOptions: { outDir: 'dist' } });
  files['packages/built/src/index.ts'] = 'export const built = 1;\n';
  files['packages/built/src/a.ts'] = 'export const a = 1;\n';
  files['packages/pattern/package.json'] = json({ name: '@many/pattern', version: '0.1.0', exports: { './components/*': './dist/components/*.js', './sheets/*.css': './sheets/*.css', './none/*': './dist/none/*.js' } });
  files['packages/pattern/tsconfig.json'] = json({ compilerOptions: { outDir: 'dist', rootDir: 'src' } });
  files['packages/pattern/src/components/button.ts'] = 'export const button = 1;\n';
  files['packages/pattern/src/components/deep/card.tsx'] = 'export const card = 1;\n';
  files['packages/pattern/src/components/types.d.ts'] = 'export type T = 1;\n';
  files['packages/pattern/sheets/a.css'] = '.a {}\n';
  files['packages/pattern/sheets/b.css'] = '.b {}\n';
  files['packages/open/package.json'] = json({ name: '@many/open', version: '2.0.0', main: 'lib/index.js', scripts: { build: 'tsc -p tsconfig.build.json' } });
  files['packages/open/tsconfig.build.json'] = json({ compilerOptions: { outDir: 'lib', rootDir: 'src' } });
  files['packages/open/src/index.ts'] = 'export const open = 1;\n';
  files['packages/open/src/util/helper.ts'] = 'export const helper = 1;\n';
  files['packages/modules/package.json'] = json({ name: '@many/modules', version: '3.0.0', core: { modules: 'modules', bundler: 'esbuild', define: { __V__: '"3"' } }, bundlers: { custom: 'custom-bundler', rich: { specifier: 'rich-bundler', processors: { bundle: { compiler: 'esbuild' } } } } });
  files['packages/modules/modules/a/module.json'] = json({ entry: 'index.ts', bundler: 'custom' });
  files['packages/modules/modules/a/index.ts'] = 'export const a = 1;\n';
  files['packages/modules/modules/b/module.json'] = json({ entry: 'main.ts', subpath: 'bee', bundler: 'rich' });
  files['packages/modules/modules/b/main.ts'] = 'export const b = 1;\n';
  files['packages/modules/modules/c/module.json'] = '{ not json';
  files['packages/modules/modules/d/module.json'] = json({});
  files['packages/modules/modules/d/deeper/module.json'] = json({ entry: 'x.ts', bundler: 'unknown' });
  files['packages/modules/modules/d/deeper/x.ts'] = 'export const x = 1;\n';
  files['packages/modules/modules/nested/package.json'] = json({ name: '@many/nested', version: '1.0.0' });
  files['packages/modules/modules/nested/inner/module.json'] = json({ entry: 'index.ts' });
  files['packages/modules/modules/.hidden/module.json'] = json({ entry: 'index.ts' });
  files['packages/modules/modules/node_modules/dep/module.json'] = json({ entry: 'index.ts' });
  files['packages/paths/package.json'] = json({ name: '@many/paths', version: '1.0.0', module: 'dist/paths.mjs' });
  files['packages/paths/src/index.ts'] = 'export const paths = 1;\n';
  // Two packages writing one name: neither is taken (README "Workspaces").
  files['packages/twin/package.json'] = json({ name: '@many/twin', version: '9.9.9', exports: { '.': './index.ts' } });
  files['packages/twin/index.ts'] = 'export const twin = 1;\n';
  files['packages/twin2/package.json'] = json({ name: '@many/twin', version: '9.9.8', exports: { '.': './index.ts' } });
  files['packages/twin2/index.ts'] = 'export const twin = 2;\n';
  files['packages/bad/package.json'] = json({ name: '@many/bad', version: '1.0.0', exports: { './out': '../outside.ts', './x y': './x.ts', './ok': './ok.js' }, dependencies: { '@many/plain': 5 } });
  return files;
}
