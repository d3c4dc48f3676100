// Modules that import each other's entries by relative path (README "Bundling real code"), as
// Lit's do, in Chromium: a TypeScript re-export of another module's types (`export { Part }
// from './parts.js'`, `Part` a type) must not reach the page as an import of a name that
// module's output does not export, on /preview/ and on /preview/bundled/.
import { expect } from 'chai';
import { chromiumForSuite, openPage } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace, writeFile } from '../helpers/workspace.js';

const PARTS = `
export type { Part, PartKind };
type PartKind = 'child' | 'attribute';
class Part {
  constructor(readonly kind: PartKind) {}
}
export const makePart = (kind: PartKind): Part => new Part(kind);
export default 'parts';
`;

// Part and PartKind are types: tsc erases them, knowing parts.ts; the values stay.
const DIRECTIVE = `
import { Part } from './parts.js';
export { Part, PartKind, makePart } from './parts.js';
export { default as partsName } from './parts.js';
export const describe = (part: Part): string => 'directive on ' + part.kind;
`;

const MAIN = `
import { describe, makePart, partsName } from '@demo/lib/directive';
document.body.dataset.shown = describe(makePart('child')) + ' from ' + partsName;
`;

function workspace(): string {
  return inlineWorkspace(
    {
      'packages/lib': {
        manifest: { name: '@demo/lib', version: '1.0.0', type: 'module', exports: { './parts': './src/parts.ts', './directive': './src/directive.ts' } },
        files: { 'src/parts.ts': PARTS, 'src/directive.ts': DIRECTIVE },
      },
      'packages/app': {
        manifest: { name: '@demo/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts' }, dependencies: { '@demo/lib': '1.0.0' } },
        files: { 'main.ts': MAIN },
      },
    },
    { 'core.json': JSON.stringify({ packages: ['packages/lib', 'packages/app'], preview: '@demo/app/main' }) },
  );
}

describe('a TypeScript module re-exporting the types of another module it imports by relative path, in Chromium', function () {
  const browser = chromiumForSuite();

  for (const address of ['/preview/', '/preview/bundled/']) {
    it(`runs on ${address}, the types erased and the values imported from the other module`, async function () {
      const service = await serve(workspace());
      const watched = await openPage(browser());
      try {
        const state = JSON.parse((await service.get('/state')).body.toString()) as { modules: { specifier: string; status: string }[] };
        expect(state.modules.map((module) => `${module.specifier} ${module.status}`)).to.deep.equal(['@demo/lib/directive valid', '@demo/lib/parts valid', '@demo/app/main valid']);
        await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
        await watched.page.waitForFunction(() => document.body.dataset.shown !== undefined, undefined, { timeout: 15_000 }).catch(() => {
          throw new Error(`the page did not run: ${[...watched.errors, ...watched.failed].join(' | ') || 'no error seen'}`);
        });
        expect(await watched.page.evaluate(() => document.body.dataset.shown)).to.equal('directive on child from parts');
        expect({ errors: watched.errors, failed: watched.failed }).to.deep.equal({ errors: [], failed: [] });
      } finally {
        await watched.page.close();
        await service.close();
      }
    });
  }

  it('imports a type made a value in a file the other entry re-exports from at the next load, on /preview/', async function () {
    const root = inlineWorkspace(
      {
        'packages/lib': {
          manifest: { name: '@demo/lib', version: '1.0.0', type: 'module', exports: { './plain': './src/plain.ts', './main': './src/main.ts' } },
          files: { 'src/part.ts': 'export type Part = { name: string };\n', 'src/plain.ts': "export * from './part.ts';\nexport const plain = 1;\n", 'src/main.ts': "export { Part, plain } from './plain.ts';\n" },
        },
        'packages/app': {
          manifest: { name: '@demo/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts' }, dependencies: { '@demo/lib': '1.0.0' } },
          files: { 'main.ts': "import * as lib from '@demo/lib/main';\ndocument.body.dataset.shown = Object.keys(lib).sort().join(',');\n" },
        },
      },
      { 'core.json': JSON.stringify({ packages: ['packages/lib', 'packages/app'], preview: '@demo/app/main' }) },
    );
    const service = await serve(root);
    // Each load in a page of its own: the first one's push channel may reload it when the code changes.
    const shown = async () => {
      const watched = await openPage(browser());
      try {
        await watched.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
        await watched.page.waitForFunction(() => document.body.dataset.shown !== undefined, undefined, { timeout: 15_000 }).catch(() => {
          throw new Error(`the page did not run: ${[...watched.errors, ...watched.failed].join(' | ') || 'no error seen'}`);
        });
        expect({ errors: watched.errors, failed: watched.failed }).to.deep.equal({ errors: [], failed: [] });
        return await watched.page.evaluate(() => document.body.dataset.shown);
      } finally {
        await watched.page.close();
      }
    };
    try {
      expect(await shown()).to.equal('plain');
      writeFile(root, 'packages/lib/src/part.ts', 'export class Part {}\n');
      expect(await shown()).to.equal('Part,plain');
    } finally {
      await service.close();
    }
  });
});

// Directory imports (`'../reg'`, `'../reg/'`), the everyday TypeScript spelling, and a tsconfig
// `paths` alias reach another module's entry through its folder's index: one copy of that
// module's state on the page.
describe('modules importing another module\'s entry by its directory, in Chromium', function () {
  const browser = chromiumForSuite();

  it('share one registry with the page: each spelling pushes into the same array', async function () {
    const spellings = { folder: '../reg', slash: '../reg/', file: '../reg/index.ts', alias: '@/reg' };
    const files: Record<string, string> = { 'src/reg/index.ts': 'export const reg: string[] = [];\n' };
    for (const [name, spelling] of Object.entries(spellings)) files[`src/${name}/index.ts`] = `import { reg } from '${spelling}';\nreg.push('${name}');\nexport {};\n`;
    const root = inlineWorkspace(
      {
        'packages/lib': {
          manifest: { name: '@demo/lib', version: '1.0.0', type: 'module', exports: Object.fromEntries(['reg', ...Object.keys(spellings)].map((name) => [`./${name}`, `./src/${name}/index.ts`])) },
          files: { ...files, 'tsconfig.json': JSON.stringify({ compilerOptions: { allowImportingTsExtensions: true, noEmit: true, paths: { '@/*': ['./src/*'] } } }) },
        },
        'packages/app': {
          manifest: { name: '@demo/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts' }, dependencies: { '@demo/lib': '1.0.0' } },
          files: { 'main.ts': `import { reg } from '@demo/lib/reg';\n${Object.keys(spellings).map((name) => `import '@demo/lib/${name}';`).join('\n')}\ndocument.body.dataset.shown = reg.join(',');\n` },
        },
      },
      { 'core.json': JSON.stringify({ packages: ['packages/lib', 'packages/app'], preview: '@demo/app/main' }) },
    );
    const service = await serve(root);
    const watched = await openPage(browser());
    try {
      await watched.page.goto(new URL('/preview/', service.url).href, { waitUntil: 'load' });
      await watched.page.waitForFunction(() => document.body.dataset.shown !== undefined, undefined, { timeout: 15_000 }).catch(() => {
        throw new Error(`the page did not run: ${[...watched.errors, ...watched.failed].join(' | ') || 'no error seen'}`);
      });
      expect(await watched.page.evaluate(() => document.body.dataset.shown)).to.equal('folder,slash,file,alias');
      expect({ errors: watched.errors, failed: watched.failed }).to.deep.equal({ errors: [], failed: [] });
    } finally {
      await watched.page.close();
      await service.close();
    }
  });
});
