// Packages as their authors write them, in a workspace of our own that reproduces each pattern
// of real libraries: `exports` naming build output (a root ".", condition objects, a tsconfig
// outDir/rootDir to map it back to src/), a bundler's output that maps to nothing but a tsconfig
// `paths` entry (through `extends` of a package linked into node_modules) names, entry files that
// import each other by relative path, and decorators with and without a tsconfig.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { openPreview, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';
import type { ServiceOptions } from '../../src/service.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

export function realCodeWorkspace(): string {
  const root = tempWorkspace({
    'core.json': json({ packages: ['packages/base', 'packages/geometry', 'packages/app'], preview: '@kit/app/main' }),
    'config/package.json': json({ name: 'config', version: '0.0.0', private: true }),
    // Monorepo convention: the paths of every package's sources, in a shared base config.
    'config/tsconfig.base.json': `{
      // comments and trailing commas, as tsc allows
      "compilerOptions": {
        "baseUrl": ".",
        "paths": {
          "@kit/geometry": ["../packages/geometry/src/index.ts"],
          "@kit/base": ["../packages/base/src/index.ts"],
        },
      },
    }`,
    // A lit-like package: exports name tsc's output (development/) and a minified build.
    'packages/base/package.json': json({
      name: '@kit/base',
      version: '2.0.0',
      type: 'module',
      exports: {
        '.': { types: './development/index.d.ts', default: './index.js' },
        './element.js': { types: './development/element.d.ts', development: './development/element.js', default: './element.js' },
        './decorators/tag.js': { types: './development/decorators/tag.d.ts', default: './decorators/tag.js' },
        './internal/*': null,
      },
    }),
    'packages/base/tsconfig.json': json({ compilerOptions: { outDir: './development/', rootDir: './src', experimentalDecorators: true } }),
    'packages/base/src/index.ts': "export * from './element.js';\nexport { tag } from './decorators/tag.js';\n",
    'packages/base/src/element.ts': `const loads = ((globalThis as { kitBaseLoads?: number }).kitBaseLoads ?? 0) + 1;
(globalThis as { kitBaseLoads?: number }).kitBaseLoads = loads;
export class BaseElement extends HTMLElement {
  connectedCallback(): void {
    this.textContent = this.render();
  }
  render(): string {
    return '';
  }
}
`,
    'packages/base/src/decorators/tag.ts': `import { BaseElement } from '../element.js';
export const tag = (name: string) => (value: typeof BaseElement, _context?: unknown) => {
  if (!(value.prototype instanceof BaseElement)) throw new TypeError(\`@tag('\${name}') decorates a BaseElement\`);
  if (!customElements.get(name)) customElements.define(name, value);
};
`,
    // A floating-ui-like package: exports name a bundler's output, the sources found by paths.
    'packages/geometry/package.json': json({
      name: '@kit/geometry',
      version: '1.0.0',
      exports: { '.': { import: { types: './dist/geometry.d.mts', default: './dist/geometry.mjs' }, default: './dist/geometry.umd.js' }, './package.json': './package.json' },
    }),
    'packages/geometry/tsconfig.json': json({ extends: 'config/tsconfig.base.json', compilerOptions: { outDir: 'out-tsc' } }),
    'packages/geometry/src/index.ts': "export const NAME = 'geometry-source-marker';\nexport function rightOf(width: number): number {\n  return width + 8;\n}\n",
    // The app: decorators (standard ones: no tsconfig says otherwise), roots by bare specifier.
    'packages/app/package.json': json({ name: '@kit/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { '@kit/base': '^2.0.0', '@kit/geometry': 'workspace:*' } }),
    'packages/app/main/index.ts': `import { BaseElement, tag } from '@kit/base';
import { rightOf } from '@kit/geometry';

@tag('kit-app')
export class App extends BaseElement {
  override render(): string {
    return \`placed at \${rightOf(100)}\`;
  }
}

document.body.append(document.createElement('kit-app'));
`,
  });
  fs.mkdirSync(path.join(root, 'node_modules'), { recursive: true });
  fs.symlinkSync('../config', path.join(root, 'node_modules', 'config'));
  return root;
}

describe('real packages, as their authors write them', function () {
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    service = await serve(realCodeWorkspace());
  });
  after(async function () {
    await service?.close();
  });

  const code = async (address: string) => {
    const answer = await service.get(address);
    expect(answer.status, `${address}: ${answer.text.slice(0, 300)}`).to.equal(200);
    return answer.text;
  };

  it('publishes the package roots and the exports naming build output, all valid', async function () {
    const report = await service.report();
    expect(report.diagnostics).to.deep.equal([]);
    expect(report.modules.map((m) => [m.specifier, m.subpath, m.status, m.diagnostics])).to.deep.equal([
      ['@kit/base', '@root', 'valid', []],
      ['@kit/base/decorators/tag.js', 'decorators/tag.js', 'valid', []],
      ['@kit/base/element.js', 'element.js', 'valid', []],
      ['@kit/geometry', '@root', 'valid', []],
      ['@kit/app/main', 'main', 'valid', []],
    ]);
  });

  it('serves a root module at its @root address, whose relative imports of other entries stay bare', async function () {
    const root = await code('/m/@kit/base@2.0.0/modules/@root');
    expect(root).to.match(/from\s*"@kit\/base\/element\.js"/);
    expect(root).to.match(/from\s*"@kit\/base\/decorators\/tag\.js"/);
    expect(root).to.not.include('kitBaseLoads');
    const decorator = await code('/m/@kit/base@2.0.0/modules/decorators/tag.js');
    expect(decorator).to.match(/from\s*"@kit\/base\/element\.js"/);
    expect(decorator).to.not.include('kitBaseLoads');
    expect(await code('/m/@kit/base@2.0.0/modules/element.js')).to.include('kitBaseLoads');
  });

  it('warns MODULE_BOUNDARY_CROSSED where a relative import reaches another module, and stays valid', async function () {
    const report = await service.report();
    const tag = report.modules.find((m) => m.specifier === '@kit/base/decorators/tag.js')!;
    expect(tag.status).to.equal('valid');
    expect(tag.warnings).to.have.length(1);
    expect(tag.warnings![0]).to.include({ kind: 'MODULE_BOUNDARY_CROSSED', file: 'packages/base/src/decorators/tag.ts', line: 1 });
    expect(tag.warnings![0]!.message).to.include('write import ... from "@kit/base/element.js"');
    expect(report.modules.find((m) => m.specifier === '@kit/geometry')).to.not.have.property('warnings');
  });

  it('keeps bare imports of workspace packages bare though a tsconfig paths entry maps them to sources', async function () {
    const app = await code('/m/@kit/app@1.0.0/modules/main');
    expect(app).to.match(/from\s*"@kit\/geometry"/);
    expect(app).to.match(/from\s*"@kit\/base"/);
    expect(app).to.not.include('geometry-source-marker');
    expect(await code('/m/@kit/geometry@1.0.0/modules/@root')).to.include('geometry-source-marker');
  });

  it('lowers decorators and never takes esbuild helpers for imports of packages', async function () {
    const app = await code('/m/@kit/app@1.0.0/modules/main?env=production');
    expect(app).to.not.match(/@tag\(/);
    const entry = (await service.get('/preview/entry.json')).json<{ diagnostics: unknown[]; imports: Record<string, string> }>();
    expect(entry.diagnostics).to.deep.equal([]);
    expect(Object.keys(entry.imports).some((specifier) => specifier.startsWith('<'))).to.equal(false);
  });

  it('maps an entry that is the entry of two modules to one address in the import map', async function () {
    const entry = (await service.get('/preview/entry.json')).json<{ imports: Record<string, string> }>();
    expect(entry.imports['@kit/base']).to.match(/^\/m\/@kit\/base@2\.0\.0\/modules\/@root\?/);
    expect(entry.imports['@kit/base/element.js']).to.match(/^\/m\/@kit\/base@2\.0\.0\/modules\/element\.js\?/);
  });

  it('preloads every module of the graph the preview page imports, each address once', async function () {
    const entry = (await service.get('/preview/entry.json')).json<{ imports: Record<string, string> }>();
    const page = (await service.get('/preview/', { accept: 'text/html' })).text;
    const preloaded = [...page.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((match) => match[1]!.replace(/&amp;/g, '&'));
    expect(preloaded.sort()).to.deep.equal([...new Set(Object.values(entry.imports))].sort());
  });

  it('maps, after a selection, what the CDN-served modules import too, and keeps serving the entry package', async function () {
    const selection = path.join(service.root, '.core/selection.json');
    fs.mkdirSync(path.dirname(selection), { recursive: true });
    try {
      fs.writeFileSync(selection, json({ packages: ['@kit/app'] }));
      let entry = (await service.get('/preview/entry.json')).json<{ imports: Record<string, string>; diagnostics: unknown[] }>();
      expect(entry.imports['@kit/base']).to.equal('https://cdn.test/@kit/base@2.0.0');
      // Imported by @kit/base itself, which the CDN serves with its bare imports kept.
      expect(entry.imports['@kit/base/element.js']).to.equal('https://cdn.test/@kit/base@2.0.0/element.js');
      expect(entry.imports['@kit/base/decorators/tag.js']).to.equal('https://cdn.test/@kit/base@2.0.0/decorators/tag.js');
      expect(entry.imports['@kit/app/main']).to.match(/^\/m\/@kit\/app@1\.0\.0\/modules\/main\?/);
      fs.writeFileSync(selection, json({ packages: ['@kit/base'] }));
      entry = (await service.get('/preview/entry.json')).json();
      expect(entry.imports['@kit/app/main'], 'the entry package stays served here').to.match(/^\/m\/@kit\/app@1\.0\.0\/modules\/main\?/);
      expect(entry.imports['@kit/geometry']).to.equal('https://cdn.test/@kit/geometry@1.0.0');
    } finally {
      fs.rmSync(selection, { force: true });
    }
  });

  describe('in Chromium', function () {
    let browser: Browser;
    let watched: Watched;

    before(async function () {
      ({ browser, watched } = await openPreview(service.url));
    });
    after(async function () {
      await browser?.close();
    });

    it('runs the decorated element, with one copy of the base package on the page', async function () {
      await watched.page.waitForFunction(() => document.querySelector('kit-app')?.textContent === 'placed at 108', null, { timeout: 20_000 }).catch(() => {});
      const shown = await watched.page.evaluate(() => ({ text: document.querySelector('kit-app')?.textContent ?? null, loads: (globalThis as { kitBaseLoads?: number }).kitBaseLoads ?? 0 }));
      expect(shown, `page errors: ${[...watched.errors, ...watched.failed].join(' | ') || 'none'}`).to.deep.equal({ text: 'placed at 108', loads: 1 });
    });

    it('shows the warnings apart: a pill that opens their list, and no error overlay', async function () {
      const seen = await watched.page.evaluate(() => ({
        pill: document.querySelector('core-warnings')?.shadowRoot?.querySelector('summary')?.textContent ?? null,
        list: document.querySelector('core-warnings')?.shadowRoot?.querySelector('ul')?.textContent ?? '',
        overlay: document.querySelector('core-overlay') !== null,
      }));
      expect(seen.pill).to.match(/^▲ \d+ warnings?$/);
      expect(seen.list).to.include('MODULE_BOUNDARY_CROSSED');
      expect(seen.overlay).to.equal(false);
    });
  });
});

describe('tsconfig.json as an input of the builds that use it', function () {
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  before(async function () {
    root = tempWorkspace({
      'core.json': json({ packages: ['packages/app', 'packages/other'] }),
      'packages/app/package.json': json({ name: '@kit/app', version: '1.0.0', exports: { './main': './src/main.ts' } }),
      'packages/app/src/main.ts': 'export class Counter {\n  count = 1;\n}\n',
      'packages/other/package.json': json({ name: '@kit/other', version: '1.0.0', exports: { './main': './main.ts' } }),
      'packages/other/main.ts': 'export class Other {\n  count = 1;\n}\n',
    });
    service = await serve(root);
  });
  after(async function () {
    await service?.close();
  });

  const codeOf = async (address: string) => (await service.get(address)).text;

  it('builds again, without restart, the modules under a tsconfig added, edited and removed, and only those', async function () {
    const app = '/m/@kit/app@1.0.0/modules/main';
    const other = '/m/@kit/other@1.0.0/modules/main';
    expect(await codeOf(app)).to.match(/^\s+count = 1;/m);
    const otherBefore = (await service.get(other)).headers.etag;
    const config = path.join(root, 'packages/app/tsconfig.json');
    fs.writeFileSync(config, json({ compilerOptions: { useDefineForClassFields: false } }));
    expect(await codeOf(app)).to.include('this.count = 1');
    fs.writeFileSync(config, json({ compilerOptions: { useDefineForClassFields: true } }));
    expect(await codeOf(app)).to.match(/^\s+count = 1;/m);
    fs.writeFileSync(config, json({ compilerOptions: { useDefineForClassFields: false } }));
    expect(await codeOf(app)).to.include('this.count = 1');
    fs.rmSync(config);
    expect(await codeOf(app)).to.match(/^\s+count = 1;/m);
    expect((await service.get(other)).headers.etag).to.equal(otherBefore);
  });

  it('builds again the module of a source whose own nearer tsconfig.json, or jsconfig.json, is added or edited', async function () {
    // esbuild applies to each source the config nearest to it, not the entry's (README "Bundling real code").
    const app = '/m/@kit/app@1.0.0/modules/main';
    fs.mkdirSync(path.join(root, 'packages/app/src/parts'), { recursive: true });
    fs.writeFileSync(path.join(root, 'packages/app/src/parts/box.ts'), 'export class Box {\n  size = 1;\n}\n');
    fs.writeFileSync(path.join(root, 'packages/app/src/main.ts'), "export { Box } from './parts/box.ts';\n");
    expect(await codeOf(app)).to.match(/^\s+size = 1;/m);
    const nested = path.join(root, 'packages/app/src/parts/tsconfig.json');
    fs.writeFileSync(nested, json({ compilerOptions: { useDefineForClassFields: false } }));
    expect(await codeOf(app), 'a tsconfig.json beside a source the entry imports').to.include('this.size = 1');
    fs.rmSync(nested);
    expect(await codeOf(app)).to.match(/^\s+size = 1;/m);
    const jsconfig = path.join(root, 'packages/app/jsconfig.json');
    fs.writeFileSync(jsconfig, json({ compilerOptions: { useDefineForClassFields: false } }));
    expect(await codeOf(app), 'a jsconfig.json where no tsconfig.json is').to.include('this.size = 1');
    fs.writeFileSync(jsconfig, json({ compilerOptions: { useDefineForClassFields: true } }));
    expect(await codeOf(app)).to.match(/^\s+size = 1;/m);
  });
});

describe('package.json fields esbuild reads as an input of the builds', function () {
  it('builds again the module whose package.json, or a nearer one beside a source, changes imports, browser or sideEffects', async function () {
    const manifest = (fields: Record<string, unknown>) => json({ name: '@kit/app', version: '1.0.0', exports: { './main': './src/main.ts' }, ...fields });
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      'packages/app/package.json': manifest({ imports: { '#unit': './src/unit-a.ts' } }),
      'packages/app/src/main.ts': "import './effect.ts';\nexport { unit } from '#unit';\nexport { part } from './parts/part.ts';\n",
      'packages/app/src/effect.ts': "console.log('SIDE_EFFECT');\n",
      'packages/app/src/unit-a.ts': "export const unit = 'UNIT_A';\n",
      'packages/app/src/unit-b.ts': "export const unit = 'UNIT_B';\n",
      'packages/app/src/parts/part.ts': "export const part = 'PART_PLAIN';\n",
      'packages/app/src/parts/part-browser.ts': "export const part = 'PART_BROWSER';\n",
    });
    const service = await serve(root);
    try {
      const code = async () => (await service.get('/m/@kit/app@1.0.0/modules/main')).text;
      expect(await code()).to.include('UNIT_A').and.include('SIDE_EFFECT').and.include('PART_PLAIN');
      fs.writeFileSync(path.join(root, 'packages/app/package.json'), manifest({ imports: { '#unit': './src/unit-b.ts' } }));
      expect(await code(), '"imports" retargeted').to.include('UNIT_B');
      fs.writeFileSync(path.join(root, 'packages/app/package.json'), manifest({ imports: { '#unit': './src/unit-b.ts' }, sideEffects: false }));
      expect(await code(), '"sideEffects": false').to.not.include('SIDE_EFFECT');
      fs.writeFileSync(path.join(root, 'packages/app/src/parts/package.json'), json({ browser: { './part.ts': './part-browser.ts' } }));
      expect(await code(), 'a package.json beside a source, with a "browser" map').to.include('PART_BROWSER');
    } finally {
      await service.close();
    }
  });
});

describe('a file added that an import resolves to before the file it found', function () {
  it('builds the module again from it: an extension-less import, a .js import of a .ts file, a directory import', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      'packages/app/package.json': json({ name: '@kit/app', version: '1.0.0', exports: { './main': './src/main.ts' } }),
      'packages/app/src/main.ts': "export { unit } from './unit';\nexport { part } from './part.js';\nexport { tool } from './tools';\n",
      'packages/app/src/unit.js': "export const unit = 'UNIT_JS';\n",
      'packages/app/src/part.ts': "export const part = 'PART_TS';\n",
      'packages/app/src/tools/index.ts': "export const tool = 'TOOL_INDEX';\n",
    });
    const service = await serve(root);
    try {
      const code = async () => (await service.get('/m/@kit/app@1.0.0/modules/main')).text;
      expect(await code()).to.include('UNIT_JS').and.include('PART_TS').and.include('TOOL_INDEX');
      fs.writeFileSync(path.join(root, 'packages/app/src/unit.ts'), "export const unit = 'UNIT_TS';\n");
      expect(await code(), 'unit.ts beside unit.js').to.include('UNIT_TS');
      fs.writeFileSync(path.join(root, 'packages/app/src/part.js'), "export const part = 'PART_JS';\n");
      expect(await code(), 'part.js beside part.ts').to.include('PART_JS');
      fs.writeFileSync(path.join(root, 'packages/app/src/tools.ts'), "export const tool = 'TOOL_FILE';\n");
      expect(await code(), 'tools.ts beside tools/').to.include('TOOL_FILE');
    } finally {
      await service.close();
    }
  });
});

describe('a file added where esbuild looks before TypeScript\'s rewrite', function () {
  it('builds the module again from it: `./piece.js`, found as piece.ts, once piece.js.ts is made', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      'packages/app/package.json': json({ name: '@kit/app', version: '1.0.0', exports: { './main': './src/main.ts' } }),
      'packages/app/src/main.ts': "export { piece } from './piece.js';\n",
      'packages/app/src/piece.ts': "export const piece: string = 'PIECE_TS';\n",
    });
    const service = await serve(root);
    try {
      const code = async () => (await service.get('/m/@kit/app@1.0.0/modules/main')).text;
      expect(await code()).to.include('PIECE_TS');
      fs.writeFileSync(path.join(root, 'packages/app/src/piece.js.ts'), "export const piece: string = 'PIECE_JS_TS';\n");
      expect(await code(), 'piece.js.ts, tried before piece.ts').to.include('PIECE_JS_TS').and.not.include("'PIECE_TS'");
    } finally {
      await service.close();
    }
  });
});

describe('a file added at a target a tsconfig mapping tries before the file it found', function () {
  it('builds the module again from it: an earlier target of a "paths" entry, an extension-less import through "baseUrl"', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      'packages/app/package.json': json({ name: '@kit/app', version: '1.0.0', exports: { './main': './src/main.ts' } }),
      'packages/app/tsconfig.json': json({ compilerOptions: { baseUrl: '.', paths: { '#parts/*': ['./overrides/*', './src/parts/*'] } } }),
      'packages/app/src/main.ts': "export { part } from '#parts/part.ts';\nexport { unit } from 'src/unit';\n",
      'packages/app/src/parts/part.ts': "export const part = 'PART_DEFAULT';\n",
      'packages/app/src/unit.ts': "export const unit = 'UNIT_TS';\n",
    });
    const service = await serve(root);
    try {
      const code = async () => (await service.get('/m/@kit/app@1.0.0/modules/main')).text;
      expect(await code()).to.include('PART_DEFAULT').and.include('UNIT_TS');
      fs.mkdirSync(path.join(root, 'packages/app/overrides'));
      fs.writeFileSync(path.join(root, 'packages/app/overrides/part.ts'), "export const part = 'PART_OVERRIDE';\n");
      expect(await code(), 'overrides/part.ts, the first target').to.include('PART_OVERRIDE');
      fs.writeFileSync(path.join(root, 'packages/app/src/unit.tsx'), "export const unit = 'UNIT_TSX';\n");
      expect(await code(), 'src/unit.tsx beside src/unit.ts').to.include('UNIT_TSX');
    } finally {
      await service.close();
    }
  });
});

describe('build-time constants', function () {
  it("replaces the names of a package's core.define in its modules, development and production, and only there", async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/lib', 'packages/other'] }),
      'packages/lib/package.json': json({ name: '@kit/lib', version: '1.0.0', exports: { './main': './main.ts' }, core: { define: { __LIB_VERSION__: '"1.2.3"' } } }),
      'packages/lib/main.ts': 'declare const __LIB_VERSION__: string;\nexport const version = __LIB_VERSION__;\n',
      'packages/other/package.json': json({ name: '@kit/other', version: '1.0.0', exports: { './main': './main.ts' } }),
      'packages/other/main.ts': "declare const __LIB_VERSION__: string;\nexport const version = typeof __LIB_VERSION__ === 'string' ? __LIB_VERSION__ : 'none';\n",
    });
    const service = await serve(root);
    try {
      expect((await service.get('/m/@kit/lib@1.0.0/modules/main')).text).to.include('version = "1.2.3"');
      expect((await service.get('/m/@kit/lib@1.0.0/modules/main?env=production')).text).to.include('"1.2.3"');
      expect((await service.get('/m/@kit/other@1.0.0/modules/main')).text).to.include('__LIB_VERSION__');
      fs.writeFileSync(path.join(root, 'packages/lib/package.json'), json({ name: '@kit/lib', version: '1.0.0', exports: { './main': './main.ts' }, core: { define: { __LIB_VERSION__: '"2.0.0"' } } }));
      expect((await service.get('/m/@kit/lib@1.0.0/modules/main')).text).to.include('version = "2.0.0"');
    } finally {
      await service.close();
    }
  });
});

describe("esbuild's warnings", function () {
  it('lists them as warnings of a module that stays valid: a stylesheet missing its closing brace', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      'packages/app/package.json': json({ name: '@kit/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'packages/app/main/index.ts': "import './styles.css';\nexport const x = 1;\n",
      'packages/app/main/styles.css': '.app { color: teal;\n',
    });
    const service = await serve(root);
    try {
      const [module] = (await service.report()).modules;
      expect(module!.status).to.equal('valid');
      expect(module!.warnings?.map((w) => [w.kind, w.file])).to.deep.equal([['CSS_SYNTAX', 'packages/app/main/styles.css']]);
      expect(module!.warnings![0]!.frame).to.equal('1 | .app { color: teal;\n  |      ^ The unbalanced "{" is here:\n2 | \n  | ^');
      expect(module!.warnings![0]!.line).to.be.a('number');
    } finally {
      await service.close();
    }
  });
});

describe("a stylesheet's warning once the stylesheet is fixed", function () {
  it('is gone from /state, /preview/entry.json and, after a restart, from the build cache', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      'packages/app/package.json': json({ name: '@kit/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'packages/app/main/index.ts': "import './styles.css';\nexport const x = 1;\n",
      'packages/app/main/styles.css': '.app { color: teal; }\n',
    });
    const cache = tempWorkspace();
    const options: ServiceOptions = { cache, effectDeps: (deps) => ({ ...deps, persistDelayMs: 20 }) };
    const warningsNow = async (service: Awaited<ReturnType<typeof serve>>) => ({
      state: (await service.report()).modules[0]!.warnings?.map((warning) => warning.kind),
      preview: (JSON.parse((await service.get('/preview/entry.json')).text) as { warnings?: { kind: string }[] }).warnings?.map((warning) => warning.kind),
    });
    const first = await serve(root, options);
    try {
      // Broken, the module is built whole again; fixed, its stylesheet alone.
      fs.writeFileSync(path.join(root, 'packages/app/main/styles.css'), '.app { color: teal;\n');
      expect(await warningsNow(first)).to.deep.equal({ state: ['CSS_SYNTAX'], preview: ['CSS_SYNTAX'] });
      fs.writeFileSync(path.join(root, 'packages/app/main/styles.css'), '.app { color: teal; }\n');
      expect(await warningsNow(first)).to.deep.equal({ state: undefined, preview: undefined });
      await waitFor(() => !fs.readFileSync(path.join(cache, 'builds.json'), 'utf8').includes('CSS_SYNTAX'), { what: 'the fixed build in the cache' });
    } finally {
      await first.close();
    }
    const second = await serve(root, options);
    try {
      expect(await warningsNow(second)).to.deep.equal({ state: undefined, preview: undefined });
    } finally {
      await second.close();
    }
  });
});

describe('declared assets that esbuild also compiles', function () {
  it('serves worker.js and data.css as assets and leaves the imports of the module alone', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'] }),
      'packages/app/package.json': json({ name: '@kit/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'packages/app/main/module.json': json({ assets: ['worker.js', 'data.css'] }),
      'packages/app/main/index.ts': "import { helper } from './helper.ts';\nimport './styles.css';\nexport const worker = new URL('../assets/main/worker.js', import.meta.url).href;\nexport const value = helper();\n",
      'packages/app/main/helper.ts': 'export const helper = () => 42;\n',
      'packages/app/main/styles.css': '.app { color: teal; }\n',
      'packages/app/main/worker.js': 'self.onmessage = () => {};\n',
      'packages/app/main/data.css': '.data { color: red; }\n',
    });
    const service = await serve(root);
    try {
      const report = await service.report();
      expect(report.modules.map((m) => [m.specifier, m.status, m.diagnostics])).to.deep.equal([['@kit/app/main', 'valid', []]]);
      expect((await service.get('/m/@kit/app@1.0.0/modules/main')).text).to.include('42');
      const worker = await service.get('/m/@kit/app@1.0.0/assets/main/worker.js?q=oct'); // a query is ignored
      expect(worker.status).to.equal(200);
      expect(worker.text).to.equal('self.onmessage = () => {};\n');
      expect((await service.get('/m/@kit/app@1.0.0/assets/main/data.css')).text).to.equal('.data { color: red; }\n');
    } finally {
      await service.close();
    }
  });
});

describe('exports patterns', function () {
  it('publishes a module per source file a "*" pattern matches, through outDir, and a new file without restart', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/ui'] }),
      'packages/ui/package.json': json({ name: '@kit/ui', version: '1.0.0', exports: { './components/*': { types: './dist/components/*.d.ts', default: './dist/components/*.js' }, './components/internal-*': null } }),
      'packages/ui/tsconfig.json': json({ compilerOptions: { outDir: 'dist', rootDir: 'src' } }),
      'packages/ui/src/components/badge.ts': "export const badge = 'badge';\n",
      'packages/ui/src/components/card.ts': "export const card = 'card';\n",
      'packages/ui/src/components/card.d.ts': 'export declare const card: string;\n',
      'packages/ui/src/components/internal-state.ts': 'export const state = {};\n',
    });
    const service = await serve(root);
    try {
      const before = await service.report();
      expect(before.modules.map((m) => [m.specifier, m.status])).to.deep.equal([
        ['@kit/ui/components/badge', 'valid'],
        ['@kit/ui/components/card', 'valid'],
      ]);
      fs.writeFileSync(path.join(root, 'packages/ui/src/components/chip.ts'), "export const chip = 'chip';\n");
      const after = await service.report();
      expect(after.modules.map((m) => m.specifier)).to.include('@kit/ui/components/chip');
      expect((await service.get('/m/@kit/ui@1.0.0/modules/components/chip')).text).to.include('chip = "chip"');
    } finally {
      await service.close();
    }
  });
});

describe('a broken manifest in the preview', function () {
  it('is reported as itself, with its file, first', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app', 'packages/lib'] }),
      'packages/app/package.json': json({ name: '@kit/app', version: '1.0.0', exports: { './main': './main.ts' }, dependencies: { '@kit/lib': '^1.0.0' } }),
      'packages/app/main.ts': "import { x } from '@kit/lib/x';\nexport const y = x;\n",
      'packages/lib/package.json': '{ "name": "@kit/lib", "version": "1.0.0", ',
    });
    const service = await serve(root);
    try {
      const entry = (await service.get('/preview/entry.json')).json<{ diagnostics: { kind: string; file?: string }[] }>();
      expect(entry.diagnostics[0]).to.include({ kind: 'MANIFEST_INVALID', file: 'packages/lib/package.json' });
    } finally {
      await service.close();
    }
  });
});

describe('a helper bundled into several modules', function () {
  it('is imported once by each when they reach it by a relative path, and no warning is left', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/ui'] }),
      'packages/ui/package.json': json({ name: '@kit/ui', version: '1.0.0', exports: { './a': './a.ts', './b': './b.ts', './c': './c.ts' } }),
      'packages/ui/base.ts': 'export class Base {}\n',
      'packages/ui/a.ts': "import { Base } from './base.ts';\nexport class A extends Base {}\n",
      'packages/ui/b.ts': "import { Base } from './base.ts';\nexport class B extends Base {}\n",
      'packages/ui/c.ts': 'export const c = 1;\n',
    });
    const service = await serve(root);
    try {
      const report = await service.report();
      expect(report.modules.map((m) => [m.specifier, m.status, m.warnings ?? []])).to.deep.equal([
        ['@kit/ui/a', 'valid', []],
        ['@kit/ui/b', 'valid', []],
        ['@kit/ui/c', 'valid', []],
      ]);
    } finally {
      await service.close();
    }
  });

  it('is a warning on each of them, naming the others and why, when they reach it through a tsconfig "paths" mapping, and they stay valid', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/ui'] }),
      'packages/ui/package.json': json({ name: '@kit/ui', version: '1.0.0', exports: { './a': './a.ts', './b': './b.ts', './c': './c.ts' } }),
      'packages/ui/tsconfig.json': json({ compilerOptions: { paths: { '#base': ['./base.ts'] } } }),
      'packages/ui/base.ts': 'export class Base {}\n',
      'packages/ui/a.ts': "import { Base } from '#base';\nexport class A extends Base {}\n",
      'packages/ui/b.ts': "import { Base } from '#base';\nexport class B extends Base {}\n",
      'packages/ui/c.ts': 'export const c = 1;\n',
    });
    const service = await serve(root);
    try {
      const report = await service.report();
      const warned = report.modules.map((m) => [m.specifier, m.status, (m.warnings ?? []).map((w) => [w.kind, w.file])]);
      expect(warned).to.deep.equal([
        ['@kit/ui/a', 'valid', [['HELPER_SHARED', 'packages/ui/base.ts']]],
        ['@kit/ui/b', 'valid', [['HELPER_SHARED', 'packages/ui/base.ts']]],
        ['@kit/ui/c', 'valid', []],
      ]);
      expect(report.modules[0]!.warnings![0]!.message).to.include('bundled into 2 modules (@kit/ui/a, @kit/ui/b)').and.include('tsconfig "paths"');
    } finally {
      await service.close();
    }
  });
});
