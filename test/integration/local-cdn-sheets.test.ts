// An installed sheet `@import`ing another package's sheet by its bare name, at the local CDN
// (README "The local CDN"): the `@import` is taken out of the importing sheet (its address,
// `/cdn/tokens/tokens.css`, answers nothing), and the preview maps that package's sheet and
// links it before every sheet importing it, as CSS orders an imported sheet's rules before the
// importer's. Chromium shows the cascade in test/browser/local-cdn-sheets.test.ts. An `@import`
// written after a rule, which browsers ignore, is a PREVIEW_CDN_SHEET_IMPORT_IGNORED warning.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { cdnSheetsWorkspace } from '../helpers/cdn-sheets-workspace.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

type Entry = { diagnostics: Array<{ kind: string; message: string }>; warnings?: Array<{ kind: string; module?: string; message: string }>; imports: Record<string, string>; stylesheets?: Array<{ specifier: string; href: string }> };

describe("the local CDN and an installed sheet's @import of another package's sheet", function () {
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    service = await serve(cdnSheetsWorkspace(), { cdnOrigin: 'local' });
  });
  after(async function () {
    await service?.close();
  });

  it("takes the @import out of a code entry's sheet and of a stylesheet export, joining the package's own sheet", async function () {
    const comp = await service.get('/cdn/comp@1.0.0?styles');
    expect(comp.status, comp.text).to.equal(200);
    expect(comp.text).not.to.include('@import').and.not.to.include('255');
    expect(comp.text, "its own ./local.css joined").to.include('#local');
    const theme = await service.get('/cdn/theme@1.0.0/theme.css?styles');
    expect(theme.status, theme.text).to.equal(200);
    expect(theme.text).not.to.include('@import').and.not.to.include('255');
    expect(theme.text).to.include('#theme');
  });

  it("maps the imported package's sheet and links it once, before each sheet importing it", async function () {
    const entry = (await service.get('/preview/entry.json')).json<Entry>();
    expect(entry.diagnostics).to.deep.equal([]);
    expect(entry.imports['tokens/tokens.css'] ?? '').to.match(/^\/cdn\/tokens@1\.0\.0\/tokens\.css\?v=/);
    const linked = (entry.stylesheets ?? []).map(({ specifier, href }) => [specifier, href.replace(/&v=.*$/, '')]);
    expect(linked).to.deep.equal([
      ['tokens/tokens.css', '/cdn/tokens@1.0.0/tokens.css?styles'],
      ['comp', '/cdn/comp@1.0.0?styles'],
      ['theme/theme.css', '/cdn/theme@1.0.0/theme.css?styles'],
    ]);
  });
});

describe("the local CDN and an installed sheet's @import of a package not installed", function () {
  it('is a PREVIEW_VERSION_UNRESOLVED naming it, the sheet served without the @import', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'], preview: '@cs/app/main' }),
      'packages/app/package.json': json({ name: '@cs/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { comp: '1.0.0' } }),
      'packages/app/main/index.ts': "import { label } from 'comp';\nconsole.log(label);\n",
      'node_modules/comp/package.json': json({ name: 'comp', version: '1.0.0', type: 'module', exports: './index.js', dependencies: { absent: '1.0.0' } }),
      'node_modules/comp/index.js': "import './comp.css';\nexport const label = 'comp';\n",
      'node_modules/comp/comp.css': "@import 'absent/absent.css';\n#comp { color: green; }\n",
    });
    const service = await serve(root, { cdnOrigin: 'local' });
    try {
      const entry = (await service.get('/preview/entry.json')).json<Entry>();
      expect(entry.diagnostics.map(({ kind }) => kind)).to.deep.equal(['PREVIEW_VERSION_UNRESOLVED']);
      expect(entry.diagnostics[0]!.message).to.include('absent/absent.css');
      const comp = await service.get('/cdn/comp@1.0.0?styles');
      expect(comp.status).to.equal(200);
      expect(comp.text).not.to.include('@import');
    } finally {
      await service.close();
    }
  });
});

describe("the local CDN and an installed sheet's @import after a rule", function () {
  it('is a PREVIEW_CDN_SHEET_IMPORT_IGNORED warning naming the package, its sheet and line, once per place', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'], preview: '@cs/app/main' }),
      'packages/app/package.json': json({ name: '@cs/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { late: '1.0.0' } }),
      'packages/app/main/index.ts': "import { a } from 'late';\nimport { b } from 'late/b';\nconsole.log(a, b);\n",
      'node_modules/late/package.json': json({ name: 'late', version: '1.0.0', type: 'module', exports: { '.': './a.js', './b': './b.js' } }),
      'node_modules/late/a.js': "import './late.css';\nexport const a = 'a';\n",
      'node_modules/late/b.js': "import './late.css';\nexport const b = 'b';\n",
      'node_modules/late/late.css': "#a { color: green; }\n@import './more.css';\n",
      'node_modules/late/more.css': '#b { color: green; }\n',
    });
    const service = await serve(root, { cdnOrigin: 'local' });
    try {
      const entry = (await service.get('/preview/entry.json')).json<Entry>();
      expect(entry.diagnostics).to.deep.equal([]);
      const warnings = entry.warnings ?? [];
      expect(warnings.map(({ kind, module }) => [kind, module])).to.deep.equal([['PREVIEW_CDN_SHEET_IMPORT_IGNORED', 'late']]);
      expect(warnings[0]!.message).to.include("late's sheet late.css, line 2").and.to.include("@import './more.css';");
    } finally {
      await service.close();
    }
  });
});

describe("the local CDN and an installed sheet's @import of another package's sheet with a condition", function () {
  it('is a PREVIEW_CDN_SHEET_CONDITION_UNAPPLIED warning naming the sheet, line and rule; one without a condition is not', async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app'], preview: '@cs/app/main' }),
      'packages/app/package.json': json({ name: '@cs/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { comp: '1.0.0' } }),
      'packages/app/main/index.ts': "import { label } from 'comp';\nconsole.log(label);\n",
      'node_modules/comp/package.json': json({ name: 'comp', version: '1.0.0', type: 'module', exports: './index.js', dependencies: { tokens: '1.0.0' } }),
      'node_modules/comp/index.js': "import './comp.css';\nexport const label = 'comp';\n",
      'node_modules/comp/comp.css': "@import 'tokens/tokens.css';\n@import url(\"tokens/print.css\") print;\n#comp { color: green; }\n",
      'node_modules/tokens/package.json': json({ name: 'tokens', version: '1.0.0' }),
      'node_modules/tokens/tokens.css': '#comp { color: red; }\n',
      'node_modules/tokens/print.css': '#comp { color: black; }\n',
    });
    const service = await serve(root, { cdnOrigin: 'local' });
    try {
      const entry = (await service.get('/preview/entry.json')).json<Entry>();
      expect(entry.diagnostics).to.deep.equal([]);
      const warnings = entry.warnings ?? [];
      expect(warnings.map(({ kind, module }) => [kind, module])).to.deep.equal([['PREVIEW_CDN_SHEET_CONDITION_UNAPPLIED', 'comp']]);
      expect(warnings[0]!.message).to.include("comp's sheet comp.css, line 2").and.to.include('@import url(\\"tokens/print.css\\") print;');
    } finally {
      await service.close();
    }
  });
});
