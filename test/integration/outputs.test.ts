// The success paths of the /m/ addresses (README "Addresses") against a real server: content types,
// ETag and 304, Cache-Control, CORS, inline source maps, production output, bare imports,
// bundled helpers, and asset addresses that resolve, from code and from stylesheets.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { DEV, fixtureWorkspace, PROD } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace } from '../helpers/workspace.js';

type Served = Awaited<ReturnType<typeof serve>>;

/** The `sources` of the inline source map at the end of `text`. */
function inlineSourceMap(text: string): { sources: string[]; sourcesContent?: string[] } {
  const match = /[#@] sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)\s*(?:\*\/)?\s*$/.exec(text);
  expect(match, 'an inline source map comment at the end').to.not.equal(null);
  return JSON.parse(Buffer.from(match![1]!, 'base64').toString('utf8'));
}

/** Every `new URL("<relative>", import.meta.url)` of compiled code. */
const assetUrls = (code: string): string[] => [...code.matchAll(/new URL\(\s*"([^"]+)"\s*,\s*import\.meta\.url\s*\)/g)].map((m) => m[1]!);

/** Every `url(...)` of a stylesheet, quotes removed. */
const cssUrls = (css: string): string[] => [...css.matchAll(/url\(\s*['"]?([^'")]+)['"]?\s*\)/g)].map((m) => m[1]!);

/** The path an address relative to `from` resolves to, as a browser would. */
const resolvePath = (relative: string, from: string): string => {
  const url = new URL(relative, new URL(from, 'http://service.test'));
  return url.pathname + url.search;
};

describe('/m/ outputs (README "Addresses")', function () {
  let basic: Served;
  let root: string;

  before(async function () {
    root = fixtureWorkspace('basic');
    basic = await serve(root);
  });
  after(async function () {
    await basic?.close();
  });

  describe('content types and headers', function () {
    it('serves code as text/javascript, stylesheets as text/css and an SVG asset as image/svg+xml', async function () {
      const code = await basic.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`);
      expect(code.status).to.equal(200);
      expect(code.headers['content-type']).to.equal('text/javascript; charset=utf-8');
      const styles = await basic.get(`/m/@acme/app@1.0.0/styles/main?${DEV}`);
      expect(styles.status).to.equal(200);
      expect(styles.headers['content-type']).to.equal('text/css; charset=utf-8');
      expect(styles.text).to.include('rgb(1, 2, 3)');
      const asset = await basic.get('/m/@acme/app@1.0.0/assets/main/logo.svg');
      expect(asset.status).to.equal(200);
      expect(asset.headers['content-type']).to.match(/^image\/svg\+xml/);
      expect(asset.text).to.equal(fs.readFileSync(path.join(root, 'packages/app/main/logo.svg'), 'utf8'));
    });

    it('marks every output Cache-Control: no-cache with a strong ETag', async function () {
      for (const address of [`/m/@acme/app@1.0.0/modules/main?${DEV}`, `/m/@acme/app@1.0.0/modules/main?${PROD}`, `/m/@acme/app@1.0.0/styles/main?${DEV}`, `/m/@acme/app@1.0.0/styles/main?${PROD}`, '/m/@acme/app@1.0.0/assets/main/logo.svg']) {
        const answer = await basic.get(address);
        expect(answer.status, address).to.equal(200);
        expect(answer.headers['cache-control'], address).to.equal('no-cache');
        expect(answer.headers.etag, address).to.match(/^"[^"]+"$/); // strong: no W/ prefix
      }
    });

    it('answers 304 without a body for a matching If-None-Match, and 200 for another', async function () {
      for (const address of [`/m/@acme/app@1.0.0/modules/main?${DEV}`, `/m/@acme/app@1.0.0/styles/main?${PROD}`, '/m/@acme/app@1.0.0/assets/main/logo.svg']) {
        const first = await basic.get(address);
        const again = await basic.get(address, { 'if-none-match': first.headers.etag! });
        expect(again.status, address).to.equal(304);
        expect(again.body.length, address).to.equal(0);
        expect(again.headers.etag, address).to.equal(first.headers.etag);
        const other = await basic.get(address, { 'if-none-match': '"not-the-content"' });
        expect(other.status, address).to.equal(200);
        expect(other.body.equals(first.body), address).to.equal(true);
      }
    });

    it("puts an asset's ETag value in Server-Timing, on 200 and 304 alike, and no other output's (README \"Addresses\")", async function () {
      const asset = await basic.get('/m/@acme/app@1.0.0/assets/main/logo.svg');
      expect(asset.headers['server-timing']).to.equal(`asset;desc=${asset.headers.etag}`);
      const again = await basic.get('/m/@acme/app@1.0.0/assets/main/logo.svg', { 'if-none-match': asset.headers.etag! });
      expect(again.status).to.equal(304);
      expect(again.headers['server-timing']).to.equal(`asset;desc=${asset.headers.etag}`);
      for (const address of [`/m/@acme/app@1.0.0/modules/main?${DEV}`, `/m/@acme/app@1.0.0/styles/main?${DEV}`]) {
        expect((await basic.get(address)).headers['server-timing'], address).to.equal(undefined);
      }
    });

    it('gives development and production outputs different ETags, one per content', async function () {
      const dev = await basic.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`);
      const prod = await basic.get(`/m/@acme/app@1.0.0/modules/main?${PROD}`);
      expect(dev.headers.etag).to.not.equal(prod.headers.etag);
      const defaults = await basic.get('/m/@acme/app@1.0.0/modules/main');
      expect(defaults.headers.etag, 'absent parameters take the development defaults').to.equal(dev.headers.etag);
      const shortProduction = await basic.get('/m/@acme/app@1.0.0/modules/main?env=production');
      expect(shortProduction.headers.etag, '?env=production alone asks for the production output').to.equal(prod.headers.etag);
    });
  });

  describe('CORS', function () {
    const origin = { origin: 'https://elsewhere.test' };

    it('lets any origin load production outputs and assets', async function () {
      for (const address of [`/m/@acme/app@1.0.0/modules/main?${PROD}`, `/m/@acme/app@1.0.0/styles/main?${PROD}`, '/m/@acme/lib@1.2.0/assets/widgets/badge/star.svg']) {
        const answer = await basic.get(address, origin);
        expect(answer.status, address).to.equal(200);
        expect(answer.headers['access-control-allow-origin'], address).to.equal('*');
      }
    });

    it('never puts a wildcard CORS header on development outputs, the preview, /state, /log or the runtime', async function () {
      for (const address of [`/m/@acme/app@1.0.0/modules/main?${DEV}`, `/m/@acme/app@1.0.0/styles/main?${DEV}`, '/state', '/log', '/preview/', '/preview/entry.json', '/u/runtime.js']) {
        const answer = await basic.get(address, origin);
        expect(answer.status, address).to.equal(200);
        expect(answer.headers, address).not.to.have.property('access-control-allow-origin');
      }
    });
  });

  describe('compiled code', function () {
    it('bundles helper files reached by relative imports', async function () {
      const code = (await basic.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`)).text;
      expect(code).to.include('APP_HELPER_MARKER');
      expect(code).not.to.match(/from\s*["']\.\/helper/);
      const format = (await basic.get(`/m/@acme/lib@1.2.0/modules/format?${DEV}`)).text;
      expect(format).to.include('LIB_PAD_MARKER');
      expect(format).not.to.match(/from\s*["']\.\/internal/);
    });

    it('keeps bare imports of other public modules and outside packages verbatim, without copying their source', async function () {
      for (const query of [DEV, PROD]) {
        const main = (await basic.get(`/m/@acme/app@1.0.0/modules/main?${query}`)).text;
        expect(main, query).to.match(/from\s*"@acme\/lib\/format"/);
        expect(main, query).not.to.include('LIB_PAD_MARKER');
        const templates = (await basic.get(`/m/@acme/app@1.0.0/modules/templates?${query}`)).text;
        expect(templates, query).to.match(/from\s*"lit"/);
      }
    });

    it('sends stylesheets to the styles output, never into the code', async function () {
      const code = (await basic.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`)).text;
      expect(code).not.to.include('rgb(1, 2, 3)');
      expect(code).not.to.match(/import\s*["'][^"']*\.css["']/);
      expect(code).not.to.include('document.head');
    });

    it('carries an inline source map naming the entry and helper files relative to the workspace', async function () {
      const map = inlineSourceMap((await basic.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`)).text);
      expect(map.sources).to.include.members(['packages/app/main/index.ts', 'packages/app/main/helper.ts']);
      const lib = inlineSourceMap((await basic.get(`/m/@acme/lib@1.2.0/modules/format?${DEV}`)).text);
      expect(lib.sources).to.include.members(['packages/lib/format/index.ts', 'packages/lib/format/internal/pad.ts']);
      for (const source of [...map.sources, ...lib.sources]) {
        expect(source, 'no absolute path, no climbing out of the workspace').not.to.match(/^\/|^[A-Za-z]:|(^|\/)\.\.\//);
        if (!/^[a-z][a-z0-9+.-]*:/.test(source)) expect(fs.existsSync(path.join(root, source)), source).to.equal(true);
      }
      const styles = inlineSourceMap((await basic.get(`/m/@acme/app@1.0.0/styles/main?${DEV}`)).text);
      expect(styles.sources).to.deep.equal(['packages/app/main/styles.css']);
    });

    it('serves production output minified, without source map or development runtime', async function () {
      const dev = (await basic.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`)).text;
      const prod = (await basic.get(`/m/@acme/app@1.0.0/modules/main?${PROD}`)).text;
      expect(prod).not.to.include('sourceMappingURL');
      expect(prod).not.to.include('/u/');
      expect(prod).not.to.include('/events');
      expect(prod.length).to.be.below(dev.length / 2);
      expect(prod.trim().split('\n').length, 'minified: a handful of lines').to.be.below(5);
      expect(prod).to.include('APP_HELPER_MARKER'); // string literals survive minification
      const css = (await basic.get(`/m/@acme/app@1.0.0/styles/main?${PROD}`)).text;
      expect(css).not.to.include('sourceMappingURL');
      expect(css.trim()).to.match(/^\.core-probe\{[^}]*\}$/);
    });

    it('defines process.env.NODE_ENV as "production" in production output', async function () {
      const service = await serve(
        inlineWorkspace({
          'packages/env': {
            manifest: { name: '@t/env', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: {} },
            files: { 'main/index.ts': "export const mode = process.env.NODE_ENV;\nif (process.env.NODE_ENV !== 'production') console.log('DEV_ONLY_MARKER');\n" },
          },
        }),
      );
      try {
        const prod = await service.get(`/m/@t/env@1.0.0/modules/main?${PROD}`);
        expect(prod.status).to.equal(200);
        expect(prod.text).not.to.include('process.env');
        expect(prod.text).not.to.include('DEV_ONLY_MARKER');
        expect(prod.text).to.include('"production"');
      } finally {
        await service.close();
      }
    });
  });

  describe('asset addresses', function () {
    it('answers a declared asset in a folder with the type of its extension, never its path (a folder outside Latin-1 too)', async function () {
      const svg = '<svg xmlns="http://www.w3.org/2000/svg"/>';
      const service = await serve(
        inlineWorkspace({
          'packages/app': {
            manifest: { name: '@t/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: {} },
            files: {
              'main/index.ts': 'export const x = 1;\n',
              'main/module.json': JSON.stringify({ assets: ['img/bg.svg', 'text/z.svg', 'css/card.css', 'workers/w.js', '日本/y.svg', 'docs/README', 'data/json'] }),
              'main/img/bg.svg': svg,
              'main/text/z.svg': svg,
              'main/css/card.css': '.card { color: red; }\n',
              'main/workers/w.js': 'postMessage(1);\n',
              'main/日本/y.svg': svg,
              'main/docs/README': 'read me\n',
              'main/data/json': '{}\n',
            },
          },
        }),
      );
      try {
        const types: Record<string, RegExp> = {
          'img/bg.svg': /^image\/svg\+xml$/,
          'text/z.svg': /^image\/svg\+xml$/,
          'css/card.css': /^text\/css; charset=utf-8$/,
          'workers/w.js': /^(text|application)\/javascript; charset=utf-8$/,
          [encodeURIComponent('日本') + '/y.svg']: /^image\/svg\+xml$/,
          'docs/README': /^application\/octet-stream$/,
          'data/json': /^application\/octet-stream$/,
        };
        for (const [file, type] of Object.entries(types)) {
          const answer = await service.get(`/m/@t/app@1.0.0/assets/main/${file}`);
          expect(answer.status, file).to.equal(200);
          expect(answer.headers['content-type'], file).to.match(type);
        }
      } finally {
        await service.close();
      }
    });

    it('resolves an imported asset of a one-segment subpath to its /m/ assets address', async function () {
      const address = `/m/@acme/app@1.0.0/modules/main?${DEV}`;
      for (const query of [DEV, PROD]) {
        const urls = assetUrls((await basic.get(`/m/@acme/app@1.0.0/modules/main?${query}`)).text);
        expect(urls, query).to.deep.equal(['../assets/main/logo.svg']);
      }
      const resolved = resolvePath('../assets/main/logo.svg', address);
      expect(resolved).to.equal('/m/@acme/app@1.0.0/assets/main/logo.svg');
      const asset = await basic.get(resolved);
      expect(asset.status).to.equal(200);
      expect(asset.headers['content-type']).to.match(/^image\/svg\+xml/);
    });

    it('climbs one level per subpath segment for a two-segment subpath', async function () {
      const address = `/m/@acme/lib@1.2.0/modules/widgets/badge?${DEV}`;
      const urls = assetUrls((await basic.get(address)).text);
      expect(urls).to.have.lengthOf(1);
      const resolved = resolvePath(urls[0]!, address);
      expect(resolved).to.equal('/m/@acme/lib@1.2.0/assets/widgets/badge/star.svg');
      const asset = await basic.get(resolved);
      expect(asset.status).to.equal(200);
      expect(asset.text).to.include('fill="gold"');
    });

    it('rewrites url() in a stylesheet so it resolves to the asset, in development and production', async function () {
      const deep = await serve(fixtureWorkspace('deep'));
      try {
        for (const query of [DEV, PROD]) {
          const address = `/m/@deep/kit@0.3.0/styles/widgets/button?${query}`;
          const css = await deep.get(address);
          expect(css.status, query).to.equal(200);
          const urls = cssUrls(css.text);
          expect(urls, query).to.have.lengthOf(1);
          const resolved = resolvePath(urls[0]!, address);
          // In development with the asset's version (README "Preview and stylesheet push"), which the asset's address ignores.
          const version = query === DEV ? /\?v=[A-Za-z0-9_-]{22}$/.exec(resolved)?.[0] : '';
          expect(version, resolved).to.be.a('string');
          expect(resolved, query).to.equal(`/m/@deep/kit@0.3.0/assets/widgets/button/icon.svg${version}`);
          const asset = await deep.get(resolved);
          expect(asset.status, query).to.equal(200);
          expect(asset.text).to.include('fill="#2a7"');
        }
        const code = await deep.get(`/m/@deep/kit@0.3.0/modules/widgets/button?${DEV}`);
        expect(resolvePath(assetUrls(code.text)[0]!, `/m/@deep/kit@0.3.0/modules/widgets/button`)).to.equal('/m/@deep/kit@0.3.0/assets/widgets/button/icon.svg');
      } finally {
        await deep.close();
      }
    });
  });
});
