// The workspace of the joined sheet's parts (test/browser and test/integration bundled-sheet-parts):
// the app imports a workspace library's module, then an installed package, then its own sheet, so
// every bundler joins base.css, then the package's sheet, then app.css; `code` gives the two
// modules' code and `uikit` the installed package's files.
import { inlineWorkspace } from './workspace.js';

export function sheetPartsWorkspace(code: { base: string; main: string }, uikit: Record<string, string>): string {
  const json = (value: unknown) => JSON.stringify(value);
  return inlineWorkspace(
    {
      'packages/lib': {
        manifest: { name: '@demo/lib', version: '1.0.0', type: 'module', exports: { './base': './base.ts' } },
        files: { 'base.ts': `import './base.css';\n${code.base}`, 'base.css': '.btn { outline-color: rgb(255, 0, 0); }\n' },
      },
      'packages/app': {
        manifest: { name: '@demo/app', version: '1.0.0', type: 'module', dependencies: { '@demo/lib': '1.0.0', uikit: '1.0.0' }, exports: { './main': './main.ts' } },
        files: { 'main.ts': code.main, 'app.css': '.btn { color: rgb(0, 128, 0); }\n' },
      },
    },
    {
      'core.json': json({ packages: ['packages/lib', 'packages/app'], preview: '@demo/app/main' }),
      'node_modules/uikit/package.json': json({ name: 'uikit', version: '1.0.0', type: 'module', exports: './index.js' }),
      ...Object.fromEntries(Object.entries(uikit).map(([file, text]) => [`node_modules/uikit/${file}`, text])),
    },
  );
}
