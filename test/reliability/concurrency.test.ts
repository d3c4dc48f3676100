// Concurrent cold requests share one build (README "Addresses", src/effects/builds.ts): a
// hundred requests at once for a variant nobody built yet cause exactly one `build.started`
// of that module and variant in the event log, and every one of them receives the same bytes.
import { expect } from 'chai';
import type { CoreEvent } from '../../src/store/events.js';
import { fixtureWorkspace, PROD, type FixtureName } from '../helpers/fixtures.js';
import type { Answer } from '../helpers/http.js';
import { serve } from '../helpers/service.js';
import { defects, parseNdjson, quietTree, stateOf, type Served } from './support.js';

type BuildStarted = Extract<CoreEvent, { type: 'build.started' }>;

/** A service on a quiet copy of a fixture, settled: every default variant built, nothing else. */
async function settledService(name: FixtureName, reported: string[]): Promise<Served> {
  const root = fixtureWorkspace(name);
  quietTree(root);
  const service = await serve(root, { logger: (line) => reported.push(line) });
  await stateOf(service);
  return service;
}

/** Every `build.started` in `/log` whose modules include `module`, for `variant`. */
async function buildsOf(service: Served, module: string, variant: string): Promise<BuildStarted[]> {
  const answer = await service.get('/log');
  expect(answer.status).to.equal(200);
  return parseNdjson(answer.text).filter((event): event is BuildStarted => event.type === 'build.started' && event.variant === variant && event.modules.some((m) => m.module === module));
}

/** `count` requests of `addresses` (in turn), all sent before any answer is read. */
function burst(service: Served, addresses: string[], count: number): Promise<Answer[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => service.get(addresses[index % addresses.length]!)));
}

const PRODUCTION = 'browser.production.min';

describe('concurrent cold requests', function () {
  let service: Served;
  const reported: string[] = [];

  beforeEach(async function () {
    service = await settledService('basic', reported);
  });
  afterEach(async function () {
    await service?.close();
    expect(defects(reported)).to.deep.equal([]);
  });

  it('build a production variant once for 100 concurrent requests, and all receive identical bytes', async function () {
    const address = `/m/@acme/app@1.0.0/modules/main?${PROD}`;
    expect(await buildsOf(service, '@acme/app/main', PRODUCTION), 'built before the requests').to.deep.equal([]);

    const answers = await burst(service, [address], 100);

    for (const answer of answers) expect(answer.status, answer.text.slice(0, 200)).to.equal(200);
    const first = answers[0]!;
    expect(first.text).to.include('APP_HELPER_MARKER');
    for (const answer of answers) {
      expect(answer.body.equals(first.body), 'the same bytes for every request').to.equal(true);
      expect(answer.headers.etag).to.equal(first.headers.etag);
    }
    const builds = await buildsOf(service, '@acme/app/main', PRODUCTION);
    expect(builds, JSON.stringify(builds)).to.have.lengthOf(1);
    expect(builds[0]!.reason).to.equal('request');
  });

  it('build once for concurrent requests of the code and the stylesheet of one variant', async function () {
    const addresses = [`/m/@acme/app@1.0.0/modules/main?${PROD}`, `/m/@acme/app@1.0.0/styles/main?${PROD}`, '/m/@acme/app@1.0.0/modules/main?env=production', `/m/@acme/app@1.0.0/styles/main?${PROD}&v=1`];
    const answers = await burst(service, addresses, 100);

    for (const answer of answers) expect(answer.status, answer.text.slice(0, 200)).to.equal(200);
    const code = answers.filter((_, index) => index % 2 === 0);
    const styles = answers.filter((_, index) => index % 2 === 1);
    for (const answer of code) expect(answer.body.equals(code[0]!.body)).to.equal(true);
    for (const answer of styles) expect(answer.body.equals(styles[0]!.body)).to.equal(true);
    expect(styles[0]!.text).to.include('.core-probe{color:#010203');
    expect(await buildsOf(service, '@acme/app/main', PRODUCTION)).to.have.lengthOf(1);
  });

  it('build each cold variant once when 100 requests ask for several modules and variants at once', async function () {
    const wanted = [
      { address: `/m/@acme/lib@1.2.0/modules/format?${PROD}`, module: '@acme/lib/format', variant: PRODUCTION },
      { address: '/m/@acme/lib@1.2.0/modules/server?target=node&env=production', module: '@acme/lib/server', variant: 'node.production.min' },
      { address: '/m/@acme/lib@1.2.0/modules/widgets/badge?sourcemap=none', module: '@acme/lib/widgets/badge', variant: 'browser.development.nomap' },
      { address: '/m/@acme/app@1.0.0/modules/templates?min=true', module: '@acme/app/templates', variant: 'browser.development.min' },
    ];
    for (const { module, variant } of wanted) expect(await buildsOf(service, module, variant)).to.deep.equal([]);

    const answers = await burst(service, wanted.map((w) => w.address), 100);

    wanted.forEach(({ address }, index) => {
      const mine = answers.filter((_, at) => at % wanted.length === index);
      for (const answer of mine) {
        expect(answer.status, `${address}: ${answer.text.slice(0, 200)}`).to.equal(200);
        expect(answer.body.equals(mine[0]!.body), address).to.equal(true);
      }
    });
    for (const { module, variant } of wanted) expect(await buildsOf(service, module, variant), `${module} ${variant}`).to.have.lengthOf(1);
  });

  it('answer 100 concurrent requests for a variant that fails with the same BUILD_FAILED, after one build', async function () {
    const broken = await settledService('errors', reported);
    try {
      const address = `/m/@bad/app@1.0.0/modules/badcss?${PROD}`;
      const answers = await burst(broken, [address], 100);
      for (const answer of answers) {
        expect(answer.status).to.equal(422);
        expect(answer.text).to.equal(answers[0]!.text);
      }
      expect(answers[0]!.json().code).to.equal('BUILD_FAILED');
      expect(await buildsOf(broken, '@bad/app/badcss', PRODUCTION)).to.have.lengthOf(1);
    } finally {
      await broken.close();
    }
  });
});
