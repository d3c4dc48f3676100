// Every error code of README "Error codes" the service serves, over HTTP against a real server on
// port 0: status, `application/json`, `code`, a message naming what was asked, and
// `diagnostics` exactly when a build is the cause.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { expectError, findDiagnostic } from '../helpers/answers.js';
import { DEV, fixtureWorkspace, PROD } from '../helpers/fixtures.js';
import { rawRequest } from '../helpers/raw-request.js';
import { serve } from '../helpers/service.js';

type Served = Awaited<ReturnType<typeof serve>>;

// Text of packages/app/package.json of the basic fixture: it must never leak through /m/.
const APP_MANIFEST_MARKER = 'Acme demo application.';

describe('HTTP errors (README "Error codes")', function () {
  let basic: Served;
  let broken: Served;

  before(async function () {
    basic = await serve(fixtureWorkspace('basic'));
    broken = await serve(fixtureWorkspace('errors'));
  });
  after(async function () {
    await Promise.all([basic?.close(), broken?.close()]);
  });

  describe('OUTPUT_NOT_AVAILABLE (404)', function () {
    it('answers an unknown package, naming it', async function () {
      const answer = await basic.get(`/m/@acme/nothing@1.0.0/modules/main?${DEV}`);
      expectError(answer, { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: ['@acme/nothing'] });
    });

    it('answers a wrong version, never with the current content', async function () {
      for (const address of [
        `/m/@acme/app@0.9.0/modules/main?${DEV}`,
        `/m/@acme/app@1.0.1/modules/main?${PROD}`,
        `/m/@acme/app@1.0.0-beta/styles/main`,
        `/m/@acme/app@2.0.0/assets/main/logo.svg`,
      ]) {
        const answer = await basic.get(address);
        const asked = /@acme\/app@([^/]+)/.exec(address)![1]!;
        expectError(answer, { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: [asked, '1.0.0'] });
        expect(answer.text, address).not.to.include('APP_HELPER_MARKER');
        expect(answer.text, address).not.to.include('rgb(1, 2, 3)');
        expect(answer.text, address).not.to.include('<svg');
      }
      // The current version does answer, so the 404s above are about the version alone.
      expect((await basic.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`)).status).to.equal(200);
    });

    it('answers an unknown subpath, naming it', async function () {
      const answer = await basic.get(`/m/@acme/app@1.0.0/modules/nothing/here?${DEV}`);
      expectError(answer, { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: ['nothing/here'] });
    });

    it('answers an unknown output kind, naming the address', async function () {
      for (const address of ['/m/@acme/app@1.0.0/types/main', '/m/@acme/app@1.0.0/sources/main/index.ts', '/m/@acme/app@1.0.0/modules']) {
        expectError(await basic.get(address), { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: [address] });
      }
    });

    it('answers an address that names no package and version', async function () {
      for (const address of ['/m/', '/m/@acme/app/modules/main', '/m/@acme/app@/modules/main', '/nothing', '/m']) {
        const answer = await basic.get(address);
        expectError(answer, { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: [address] });
      }
    });

    it('answers the stylesheet of a module that has none, naming the module', async function () {
      const answer = await basic.get(`/m/@acme/lib@1.2.0/styles/format?${DEV}`);
      expectError(answer, { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: ['@acme/lib/format', 'stylesheet'] });
    });

    it('answers an undeclared asset, even a file of the module, naming it', async function () {
      for (const file of ['index.ts', 'helper.ts', 'styles.css', 'module.json', 'missing.svg']) {
        const answer = await basic.get(`/m/@acme/app@1.0.0/assets/main/${file}`);
        const body = expectError(answer, { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: [file] });
        expect(body.message).to.include('@acme/app/main');
        expect(answer.text).not.to.include('APP_HELPER_MARKER');
      }
      // The declared one is served: the refusals are about the declaration.
      expect((await basic.get('/m/@acme/app@1.0.0/assets/main/logo.svg')).status).to.equal(200);
    });

    it('never lets a path escape a module, in any encoding', async function () {
      const escapes = [
        '/m/@acme/app@1.0.0/assets/main/../package.json',
        '/m/@acme/app@1.0.0/assets/main/../../../core.json',
        '/m/@acme/app@1.0.0/assets/main/%2e%2e/package.json',
        '/m/@acme/app@1.0.0/assets/main/%2E%2E/package.json',
        '/m/@acme/app@1.0.0/assets/main/.%2e/package.json',
        '/m/@acme/app@1.0.0/assets/main/..%2fpackage.json',
        '/m/@acme/app@1.0.0/assets/main/..%2Fpackage.json',
        '/m/@acme/app@1.0.0/assets/main/%2e%2e%2fpackage.json',
        '/m/@acme/app@1.0.0/assets/main/..%5cpackage.json',
        '/m/@acme/app@1.0.0/assets/main/..%5Cpackage.json',
        '/m/@acme/app@1.0.0/assets/main/%252e%252e/package.json',
        '/m/@acme/app@1.0.0/assets/main/%252e%252e%252fpackage.json',
        '/m/@acme/app@1.0.0/assets/main/..\\package.json',
        '/m/@acme/app@1.0.0/assets/main/..\\..\\package.json',
        '/m/@acme/app@1.0.0/assets/main%2f..%2f..%2fpackage.json',
        '/m/@acme/app@1.0.0/modules/main/../templates',
        '/m/@acme/app@1.0.0/modules/main%2f..%2ftemplates',
        '/m/@acme/app@1.0.0/modules/..%2fapp%2fmain',
        '/m/@acme/app@1.0.0/styles/%2e%2e/main',
        '/m/%2e%2e/%2e%2e/package.json',
      ];
      for (const address of escapes) {
        const answer = await basic.get(address);
        expectError(answer, { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: [address] });
        expect(answer.text, address).not.to.include(APP_MANIFEST_MARKER);
        expect(answer.text, address).not.to.include('<svg');
      }
    });

    it('does not serve a declared asset that is a symbolic link leaving its package', async function () {
      const root = fixtureWorkspace('basic');
      fs.writeFileSync(path.join(root, 'secret.txt'), 'TOP_SECRET_MARKER');
      fs.symlinkSync(path.join(root, 'secret.txt'), path.join(root, 'packages/app/main/leak.svg'));
      fs.writeFileSync(path.join(root, 'packages/app/main/module.json'), JSON.stringify({ platforms: ['web'], assets: ['logo.svg', 'leak.svg'] }));
      const service = await serve(root);
      try {
        const answer = await service.get('/m/@acme/app@1.0.0/assets/main/leak.svg');
        expectError(answer, { status: 404, code: 'OUTPUT_NOT_AVAILABLE', mentions: ['leak.svg'] });
        expect(answer.text).not.to.include('TOP_SECRET_MARKER');
      } finally {
        await service.close();
      }
    });
  });

  describe('CONDITIONAL_NOT_FOUND (404)', function () {
    it('answers target=browser for a module that runs on node only, naming the module and platform', async function () {
      const answer = await basic.get(`/m/@acme/lib@1.2.0/modules/server?${DEV}`);
      expectError(answer, { status: 404, code: 'CONDITIONAL_NOT_FOUND', mentions: ['@acme/lib/server', 'browser', 'web'] });
    });

    it('answers target=node for a module that runs in browsers only', async function () {
      const answer = await basic.get('/m/@acme/app@1.0.0/modules/main?target=node');
      expectError(answer, { status: 404, code: 'CONDITIONAL_NOT_FOUND', mentions: ['@acme/app/main', 'node'] });
    });

    it('serves the platform the module declares', async function () {
      const answer = await basic.get('/m/@acme/lib@1.2.0/modules/server?target=node');
      expect(answer.status).to.equal(200);
      expect(answer.text).to.include('dataFile');
    });
  });

  describe('OPTION_UNSUPPORTED (400)', function () {
    const cases: [query: string, mentions: string[]][] = [
      ['format=cjs', ['format=cjs']],
      ['env=production&min=false', ['min=false']],
      ['env=production&sourcemap=inline', ['sourcemap=inline']],
      ['env=staging', ['env=staging']],
      ['target=deno', ['target=deno']],
      ['types=true', ['types=true']],
      ['css=true', ['css=true']],
      ['minify=true', ['minify']],
      ['foo=1', ['foo']],
      ['env=development&env=development', ['env']],
      ['target=browser&target=node', ['target']],
    ];
    for (const [query, mentions] of cases) {
      it(`refuses ?${query} on code and stylesheets`, async function () {
        for (const kind of ['modules', 'styles']) {
          const answer = await basic.get(`/m/@acme/app@1.0.0/${kind}/main?${query}`);
          expectError(answer, { status: 400, code: 'OPTION_UNSUPPORTED', mentions });
        }
      });
    }

    // Given twice, `entry` names no one page: the default entry answered instead would be a page not asked for.
    it('refuses a preview entry given twice, on the page, its import map and the bundled page', async function () {
      for (const address of ['/preview/', '/preview/entry.json', '/preview/bundled/']) {
        const answer = await basic.get(`${address}?entry=@acme/app/main&entry=@acme/lib/format`);
        expectError(answer, { status: 400, code: 'OPTION_UNSUPPORTED', mentions: [address, '"entry" is given twice'] });
      }
      expect((await basic.get('/preview/?entry=@acme/app/main')).status).to.equal(200);
    });

    it('never refuses the query of an asset: it is ignored, the same declared bytes answer', async function () {
      const plain = await basic.get('/m/@acme/app@1.0.0/assets/main/logo.svg');
      const queried = await basic.get('/m/@acme/app@1.0.0/assets/main/logo.svg?env=production&q=oct');
      expect(queried.status).to.equal(200);
      expect(queried.text).to.equal(plain.text);
    });

    it('accepts every value of README "Addresses", and a cache-busting token', async function () {
      for (const query of [DEV, PROD, '', 'env=production', 'env=production&min=true', 'sourcemap=none', 'v=abc123', `${DEV}&v=1`]) {
        const answer = await basic.get(`/m/@acme/app@1.0.0/modules/main?${query}`);
        expect(answer.status, query).to.equal(200);
      }
    });
  });

  describe('BUILD_FAILED (422)', function () {
    it('lists the BUNDLE_ERROR of a stylesheet importing a missing file, on code and styles', async function () {
      for (const kind of ['modules', 'styles']) {
        for (const query of [DEV, PROD]) {
          const answer = await broken.get(`/m/@bad/app@1.0.0/${kind}/badcss?${query}`);
          const body = expectError(answer, { status: 422, code: 'BUILD_FAILED', mentions: ['@bad/app/badcss'], diagnostics: true });
          const bundle = findDiagnostic(body.diagnostics, 'BUNDLE_ERROR');
          expect(bundle.message).to.include('missing.css');
          expect(bundle.file).to.equal('packages/app/badcss/styles.css');
          expect(bundle.line).to.equal(1);
          expect(bundle.column).to.be.a('number');
        }
      }
    });

    it('lists DEPENDENCY_NOT_DECLARED for a bare import of an undeclared package', async function () {
      const body = expectError(await broken.get(`/m/@bad/app@1.0.0/modules/undeclared?${DEV}`), { status: 422, code: 'BUILD_FAILED', mentions: ['@bad/app/undeclared'], diagnostics: true });
      const problem = findDiagnostic(body.diagnostics, 'DEPENDENCY_NOT_DECLARED');
      expect(problem.message).to.include('@bad/lib');
      expect(problem).to.include({ file: 'packages/app/undeclared/index.ts', line: 1 });
    });

    it('lists DEPENDENCY_INCOMPATIBLE for a workspace package outside the declared range', async function () {
      const body = expectError(await broken.get(`/m/@bad/app@1.0.0/modules/incompatible?${DEV}`), { status: 422, code: 'BUILD_FAILED', mentions: ['@bad/app/incompatible'], diagnostics: true });
      const problem = findDiagnostic(body.diagnostics, 'DEPENDENCY_INCOMPATIBLE');
      expect(problem.message).to.include('^2.0.0').and.to.include('1.0.0');
      expect(problem).to.include({ file: 'packages/app/incompatible/index.ts', line: 1 });
    });

    it('lists PREVIEW_BUILTIN for a browser module importing node:fs', async function () {
      const body = expectError(await broken.get(`/m/@bad/app@1.0.0/modules/builtin?${DEV}`), { status: 422, code: 'BUILD_FAILED', mentions: ['@bad/app/builtin'], diagnostics: true });
      const problem = findDiagnostic(body.diagnostics, 'PREVIEW_BUILTIN');
      expect(problem.message).to.include('node:fs');
      expect(problem).to.include({ file: 'packages/app/builtin/index.ts', line: 1 });
    });

    it('serves the module of the same package that builds', async function () {
      const answer = await broken.get(`/m/@bad/app@1.0.0/modules/ok?${DEV}`);
      expect(answer.status).to.equal(200);
      expect(answer.text).to.include('function ok()');
    });
  });

  describe('PREVIEW_CDN_UNSET (503)', function () {
    let service: Served;
    before(async function () {
      service = await serve(fixtureWorkspace('basic'), { cdnOrigin: null });
    });
    after(async function () {
      await service?.close();
    });

    it('answers the preview page and its report while CORE_CDN_ORIGIN is unset, naming the variable', async function () {
      for (const address of ['/preview/', '/preview/entry.json', '/preview/?entry=@acme/lib/format']) {
        expectError(await service.get(address), { status: 503, code: 'PREVIEW_CDN_UNSET', mentions: ['CORE_CDN_ORIGIN'] });
      }
    });

    it('still serves /m/ and /state', async function () {
      expect((await service.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`)).status).to.equal(200);
      expect((await service.get('/state')).status).to.equal(200);
    });
  });

  describe('HOST_NOT_ALLOWED (403)', function () {
    it('refuses another host name on every address, naming it', async function () {
      for (const address of ['/state', `/m/@acme/app@1.0.0/modules/main?${PROD}`, '/m/@acme/app@1.0.0/assets/main/logo.svg', '/preview/', '/log', '/u/runtime.js']) {
        const answer = await basic.get(address, { host: 'evil.test' });
        expectError(answer, { status: 403, code: 'HOST_NOT_ALLOWED', mentions: ['evil.test'] });
        expect(answer.text).not.to.include('@acme/app/main"'); // no report leaks
      }
      expectError(await basic.get('/state', { host: `evil.test:${basic.port}` }), { status: 403, code: 'HOST_NOT_ALLOWED', mentions: ['evil.test'] });
      expectError(await basic.get('/state', { host: '127.0.0.1.nip.io' }), { status: 403, code: 'HOST_NOT_ALLOWED', mentions: ['127.0.0.1.nip.io'] });
    });

    it('refuses malformed Host headers', async function () {
      for (const host of ['evil test', 'localhost@evil.test', 'localhost/x', '[::1', '[evil]', 'localhost:99999999', 'a'.repeat(300), 'localhost:80:80']) {
        const answer = await basic.get('/state', { host });
        expectError(answer, { status: 403, code: 'HOST_NOT_ALLOWED', mentions: ['Host', host.slice(0, 100)] });
      }
    });

    it('refuses a request without a Host header, or with an empty one, with the JSON answer', async function () {
      for (const request of ['GET /state HTTP/1.0\r\n\r\n', 'GET /state HTTP/1.1\r\nConnection: close\r\n\r\n', 'GET /state HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n']) {
        const answer = await rawRequest(basic.port, request);
        expect(answer.status, JSON.stringify(request)).to.equal(403);
        expect(answer.headers['content-type'], JSON.stringify(request)).to.match(/^application\/json/);
        const body = JSON.parse(answer.body);
        expect(body.code).to.equal('HOST_NOT_ALLOWED');
        expect(body.message).to.include('Host');
      }
    });

    it('accepts the loopback names, with or without a port', async function () {
      for (const host of ['localhost', `localhost:${basic.port}`, 'LOCALHOST', '127.0.0.1', `127.0.0.1:${basic.port}`, `[::1]:${basic.port}`, 'app.localhost']) {
        expect((await basic.get('/state', { host })).status, host).to.equal(200);
      }
    });

    it('accepts a host name given with --allowed-host (option allowedHosts), and no other', async function () {
      const service = await serve(fixtureWorkspace('basic'), { allowedHosts: ['dev.example'] });
      try {
        expect((await service.get('/state', { host: 'dev.example' })).status).to.equal(200);
        expect((await service.get('/state', { host: `DEV.example:${service.port}` })).status).to.equal(200);
        expect((await service.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`, { host: 'dev.example' })).status).to.equal(200);
        expectError(await service.get('/state', { host: 'other.example' }), { status: 403, code: 'HOST_NOT_ALLOWED', mentions: ['other.example'] });
        expectError(await service.get('/state', { host: 'sub.dev.example' }), { status: 403, code: 'HOST_NOT_ALLOWED', mentions: ['sub.dev.example'] });
      } finally {
        await service.close();
      }
    });
  });

  describe('CROSS_SITE_REFUSED (403)', function () {
    const crossSiteScript = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', origin: 'https://evil.test' };

    it('refuses development code and stylesheets fetched cross-site as no-cors scripts, naming the module', async function () {
      for (const address of [`/m/@acme/app@1.0.0/modules/main?${DEV}`, '/m/@acme/app@1.0.0/modules/main', `/m/@acme/app@1.0.0/styles/main?${DEV}`]) {
        const answer = await basic.get(address, crossSiteScript);
        expectError(answer, { status: 403, code: 'CROSS_SITE_REFUSED', mentions: ['@acme/app/main'] });
        expect(answer.text).not.to.include('APP_HELPER_MARKER');
        expect(answer.headers).not.to.have.property('access-control-allow-origin');
      }
    });

    it('still serves production output and assets to any site, with Access-Control-Allow-Origin: *', async function () {
      for (const address of [`/m/@acme/app@1.0.0/modules/main?${PROD}`, `/m/@acme/app@1.0.0/styles/main?${PROD}`, '/m/@acme/app@1.0.0/assets/main/logo.svg']) {
        const answer = await basic.get(address, crossSiteScript);
        expect(answer.status, address).to.equal(200);
        expect(answer.headers['access-control-allow-origin'], address).to.equal('*');
      }
    });

    it('serves development output to the same site, without a wildcard CORS header', async function () {
      for (const site of ['same-origin', 'same-site', 'none']) {
        const answer = await basic.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`, { 'sec-fetch-site': site, 'sec-fetch-mode': 'no-cors' });
        expect(answer.status, site).to.equal(200);
        expect(answer.headers, site).not.to.have.property('access-control-allow-origin');
      }
      const cors = await basic.get(`/m/@acme/app@1.0.0/modules/main?${DEV}`, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', origin: 'https://evil.test' });
      expect(cors.headers, 'a cross-site fetch() is left to the browser, which lacks the CORS header').not.to.have.property('access-control-allow-origin');
    });
  });

  describe('REQUEST_INVALID (400)', function () {
    it('refuses broken percent-encoding in the path and in the query', async function () {
      for (const address of ['/m/@acme/app@1.0.0/modules/main%ZZ', `/m/@acme/app@1.0.0/modules/main?${DEV}&v=%ZZ`, '/state?x=%E0%A4%A', '/m/@acme/app@1.0.0/assets/main/logo.svg%']) {
        expectError(await basic.get(address), { status: 400, code: 'REQUEST_INVALID', mentions: ['percent-encoding'] });
      }
    });

    it('refuses an encoded NUL byte', async function () {
      for (const address of ['/m/@acme/app@1.0.0/modules/main%00', '/m/@acme/app@1.0.0/assets/main/logo.svg%00.png', '/state?x=%00']) {
        expectError(await basic.get(address), { status: 400, code: 'REQUEST_INVALID', mentions: ['NUL'] });
      }
    });

    it('refuses a raw "#" in the request-target (sent on a raw socket)', async function () {
      for (const target of ['/state#fragment', `/m/@acme/app@1.0.0/modules/main#x`, '/m/@acme/app@1.0.0/assets/main/logo.svg#/../../package.json']) {
        const answer = await rawRequest(basic.port, `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
        expect(answer.status, target).to.equal(400);
        expect(answer.headers['content-type']).to.match(/^application\/json/);
        const body = JSON.parse(answer.body);
        expect(body.code).to.equal('REQUEST_INVALID');
        expect(body.message).to.include('#');
      }
    });

    it('refuses a raw NUL byte in the request-target with the JSON answer', async function () {
      const answer = await rawRequest(basic.port, 'GET /m/@acme/app@1.0.0/modules/ma\0in HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
      expect(answer.status).to.equal(400);
      expect(answer.headers['content-type']).to.match(/^application\/json/);
      expect(JSON.parse(answer.body)).to.include({ code: 'REQUEST_INVALID' });
    });

    it('refuses a request-target over 8 KiB, naming the limit', async function () {
      const answer = await basic.get(`/m/@acme/app@1.0.0/modules/${'a'.repeat(9000)}`);
      const body = expectError(answer, { status: 400, code: 'REQUEST_INVALID', mentions: ['8192'] });
      expect(answer.text.length, 'the answer does not echo the whole address').to.be.below(2000);
      expect(body.message.length).to.be.below(500);
      const query = await basic.get(`/state?v=${'b'.repeat(9000)}`);
      expectError(query, { status: 400, code: 'REQUEST_INVALID', mentions: ['8192'] });
    });

    it('keeps answering afterwards', async function () {
      expect((await basic.get('/state')).status).to.equal(200);
    });
  });

  describe('METHOD_NOT_ALLOWED (405)', function () {
    it('refuses every method but GET and HEAD, naming the method, with Allow: GET, HEAD', async function () {
      for (const [method, address] of [
        ['POST', '/state'],
        ['POST', `/m/@acme/app@1.0.0/modules/main?${DEV}`],
        ['PUT', '/m/@acme/app@1.0.0/assets/main/logo.svg'],
        ['DELETE', '/preview/'],
        ['PATCH', '/log'],
        ['OPTIONS', `/m/@acme/app@1.0.0/modules/main?${PROD}`],
      ] as const) {
        const answer = await basic.get(address, {}, method);
        expectError(answer, { status: 405, code: 'METHOD_NOT_ALLOWED', mentions: [method] });
        expect(answer.headers.allow).to.equal('GET, HEAD');
      }
    });

    it('answers CONNECT (which Node never hands to the request listener) with the same JSON refusal', async function () {
      const answer = await rawRequest(basic.port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
      const text = answer.body;
      expectError({ status: answer.status, headers: answer.headers, text, json: () => JSON.parse(text) } as never, { status: 405, code: 'METHOD_NOT_ALLOWED', mentions: ['CONNECT'] });
      expect(answer.headers.allow).to.equal('GET, HEAD');
      expect((await basic.get('/state')).status).to.equal(200);
    });

    it('answers HEAD like GET, without a body', async function () {
      const address = `/m/@acme/app@1.0.0/modules/main?${DEV}`;
      const [head, get] = [await basic.get(address, {}, 'HEAD'), await basic.get(address)];
      expect(head.status).to.equal(200);
      expect(head.body.length).to.equal(0);
      expect(head.headers.etag).to.equal(get.headers.etag);
      expect(head.headers['content-type']).to.equal(get.headers['content-type']);
    });
  });
});
