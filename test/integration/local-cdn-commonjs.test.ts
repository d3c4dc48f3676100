// Installed CommonJS code at the local CDN (README "The local CDN"): a `require` of a package
// the requiring package declares is an import of that package's CDN module, one in a `try`
// stays as esbuild wrote it (and is no import the preview maps), a CommonJS module's
// `module.exports` is exported under Node's name for it, and an ES module entry's `export *`
// of a CommonJS file exports the names Node's `import` finds. A `require` of another export's entry
// file of the same package (by a relative path or the package's name) is an import of that
// export's module, never a second copy. Chromium runs them in
// test/browser/local-cdn-commonjs.test.ts.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { commonJsOwnExportsWorkspace, commonJsRequiresWorkspace, commonJsStarWorkspace } from '../helpers/commonjs-cdn-workspace.js';

type Service = Awaited<ReturnType<typeof serve>>;

describe('CommonJS at the local CDN', function () {
  describe("a CommonJS package's require of another package", function () {
    let service: Service;

    before(async function () {
      service = await serve(commonJsRequiresWorkspace(), { cdnOrigin: 'local' });
    });
    after(async function () {
      await service?.close();
    });

    it('maps the packages it requires, and not an optional one required in a try', async function () {
      const { diagnostics, imports } = (await service.get('/preview/entry.json')).json<{ diagnostics: unknown[]; imports: Record<string, string> }>();
      expect(diagnostics).to.deep.equal([]);
      const plain = Object.fromEntries(Object.entries(imports).map(([name, address]) => [name, address.replace(/\?.*$/, '')]));
      expect(plain).to.include({
        'cjs-dom': '/cdn/cjs-dom@1.0.0',
        'cjs-core': '/cdn/cjs-core@1.0.0',
        'cjs-core/extra.js': '/cdn/cjs-core@1.0.0/extra.js',
        'esm-dep': '/cdn/esm-dep@1.0.0',
      });
      expect(plain).not.to.have.property('opt-dep');
    });

    it('imports a required package at the top of the bundle, leaving a require in a try as written', async function () {
      const dom = await service.get('/cdn/cjs-dom@1.0.0');
      expect(dom.status).to.equal(200);
      for (const name of ['cjs-core', 'cjs-core/extra.js', 'esm-dep']) {
        expect(dom.text).to.include(`from"${name}"`);
        expect(dom.text).not.to.include(`("${name}")`);
      }
      expect(dom.text).not.to.include('from"opt-dep"');
      expect(dom.text).to.include('("opt-dep")');
    });

    it("exports a CommonJS module's module.exports under that name, an ES module's nothing of the kind", async function () {
      expect((await service.get('/cdn/cjs-core@1.0.0')).text).to.match(/export\s*\{[^}]*as\s*"module\.exports"/);
      expect((await service.get('/cdn/esm-dep@1.0.0')).text).not.to.include('module.exports');
    });
  });

  describe("an ES module entry's export * of a CommonJS file", function () {
    let service: Service;

    before(async function () {
      service = await serve(commonJsStarWorkspace(), { cdnOrigin: 'local' });
    });
    after(async function () {
      await service?.close();
    });

    it("exports the names the CommonJS file gives, the entry's own name winning", async function () {
      const wrap = await service.get('/cdn/wrap@1.0.0');
      expect(wrap.status).to.equal(200);
      expect(wrap.text).to.match(/export\s*\{[^}]*\bfoo\b/);
      expect(wrap.text).to.match(/export\s*\{[^}]*\bown\b/);
    });
  });

  describe("a CommonJS file's require of another export's entry of its own package", function () {
    let service: Service;

    before(async function () {
      service = await serve(commonJsOwnExportsWorkspace(), { cdnOrigin: 'local' });
    });
    after(async function () {
      await service?.close();
    });

    it("imports that export's module by its bare name, by a relative path or the package's name, and joins no copy of its file", async function () {
      const widgets = await service.get('/cdn/cjsreg@1.0.0/widgets');
      expect(widgets.status, widgets.text).to.equal(200);
      expect(widgets.text).to.include('from"cjsreg"');
      expect(widgets.text, "index.js's code is not copied in").not.to.include('"index"');
      const extra = await service.get('/cdn/cjsreg@1.0.0/extra');
      expect(extra.status, extra.text).to.equal(200);
      expect(extra.text).to.include('from"cjsreg"').and.to.include('from"cjsreg/widgets"');
      expect(extra.text, 'no throwing require helper').not.to.include('Dynamic require');
      expect(extra.text).not.to.include('"index"').and.not.to.include('"widgets"');
    });

    it('maps each export once, and warns of no file in two bundles', async function () {
      const entry = (await service.get('/preview/entry.json')).json<{ diagnostics: unknown[]; warnings?: unknown[]; imports: Record<string, string> }>();
      expect(entry.diagnostics).to.deep.equal([]);
      expect(entry.warnings ?? []).to.deep.equal([]);
      const plain = Object.fromEntries(Object.entries(entry.imports).map(([name, address]) => [name, address.replace(/\?.*$/, '')]));
      expect(plain).to.include({ cjsreg: '/cdn/cjsreg@1.0.0', 'cjsreg/widgets': '/cdn/cjsreg@1.0.0/widgets', 'cjsreg/extra': '/cdn/cjsreg@1.0.0/extra' });
    });
  });
});
