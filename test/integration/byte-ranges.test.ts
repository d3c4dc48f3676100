// Range requests of outputs (README "Addresses"): a declared asset's part is 206 with its
// Content-Range, a range past its end 416 with `bytes */SIZE`, an If-Range other than the strong
// ETag the whole 200; the same rules where the answer cache answers a module in front of Koa.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
// 100 bytes, each its own index's digit: a part's bytes tell where they came from.
const CLIP = Array.from({ length: 100 }, (_, index) => String(index % 10)).join('');
const ASSET = '/m/@r/media@1.0.0/assets/player/clip.mp4';

describe('Range requests', function () {
  let service: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/media'] }),
      'packages/media/package.json': json({ name: '@r/media', version: '1.0.0', exports: { './player': './player/index.ts' } }),
      'packages/media/player/module.json': json({ assets: ['clip.mp4', 'empty.bin'] }),
      'packages/media/player/clip.mp4': CLIP,
      'packages/media/player/empty.bin': '',
      'packages/media/player/index.ts': "export const clip = new URL('./clip.mp4', import.meta.url).href;\n",
    });
    service = await serve(root);
  });

  after(async function () {
    await service?.close();
  });

  const part = async (range: string, headers: Record<string, string> = {}, method = 'GET') => service.get(ASSET, { Range: range, ...headers }, method);

  it('says Accept-Ranges on the whole answer', async function () {
    const whole = await service.get(ASSET);
    expect(whole.status).to.equal(200);
    expect(whole.headers['accept-ranges']).to.equal('bytes');
    expect(whole.text).to.equal(CLIP);
  });

  it('answers one range 206 with its Content-Range: closed, open-ended, suffix, past the end', async function () {
    const cases: Array<[string, string, string]> = [
      ['bytes=10-19', 'bytes 10-19/100', CLIP.slice(10, 20)],
      ['bytes=95-', 'bytes 95-99/100', CLIP.slice(95)],
      ['bytes=-3', 'bytes 97-99/100', CLIP.slice(97)],
      ['bytes=90-5000', 'bytes 90-99/100', CLIP.slice(90)],
      ['bytes=-500', 'bytes 0-99/100', CLIP],
      ['BYTES = 0-0', 'bytes 0-0/100', CLIP.slice(0, 1)],
      ['bytes=0-4, 3-9', 'bytes 0-9/100', CLIP.slice(0, 10)],
      ['bytes=0-4,5-9,, 200-300', 'bytes 0-9/100', CLIP.slice(0, 10)],
    ];
    for (const [range, contentRange, body] of cases) {
      const answer = await part(range);
      expect([answer.status, answer.headers['content-range'], answer.text], range).to.deep.equal([206, contentRange, body]);
      expect(answer.headers['content-length'], range).to.equal(String(body.length));
      expect(answer.headers['content-type'], range).to.equal('video/mp4');
      expect(answer.headers.etag, range).to.match(/^"[\w-]{22}"$/);
    }
  });

  it('answers HEAD as GET, without the body', async function () {
    const head = await part('bytes=10-19', {}, 'HEAD');
    expect([head.status, head.headers['content-range'], head.headers['content-length'], head.body.length]).to.deep.equal([206, 'bytes 10-19/100', '10', 0]);
    const unsatisfiable = await part('bytes=100-', {}, 'HEAD');
    expect([unsatisfiable.status, unsatisfiable.headers['content-range']]).to.deep.equal([416, 'bytes */100']);
  });

  it('answers 416 with bytes */SIZE and its code when no range starts inside', async function () {
    for (const range of ['bytes=100-', 'bytes=-0', 'bytes=200-300, 150-']) {
      const answer = await part(range);
      expect([answer.status, answer.headers['content-range']], range).to.deep.equal([416, 'bytes */100']);
      expect(answer.json().code, range).to.equal('RANGE_NOT_SATISFIABLE');
      expect(answer.headers.etag, range).to.equal(undefined);
    }
    const empty = await service.get('/m/@r/media@1.0.0/assets/player/empty.bin', { Range: 'bytes=0-' });
    expect([empty.status, empty.headers['content-range']]).to.deep.equal([416, 'bytes */0']);
    const emptySuffix = await service.get('/m/@r/media@1.0.0/assets/player/empty.bin', { Range: 'bytes=-5' });
    expect([emptySuffix.status, emptySuffix.body.length]).to.deep.equal([200, 0]);
  });

  it('answers the whole 200 for ranges apart, another unit or a malformed range', async function () {
    for (const range of ['bytes=0-0,-1', 'bytes=0-9, 20-29', 'items=0-5', 'bytes=5-1', 'bytes=x', 'bytes=', 'bytes=1-2-3']) {
      const answer = await part(range);
      expect([answer.status, answer.headers['content-range'], answer.text], range).to.deep.equal([200, undefined, CLIP]);
    }
  });

  it('honours If-Range against the strong ETag only, and If-None-Match first', async function () {
    const { etag } = (await service.get(ASSET)).headers;
    const matching = await part('bytes=10-19', { 'If-Range': etag! });
    expect([matching.status, matching.text]).to.deep.equal([206, CLIP.slice(10, 20)]);
    for (const ifRange of [`W/${etag}`, '"AAAAAAAAAAAAAAAAAAAAAA"', 'Sat, 28 Nov 2026 12:00:00 GMT']) {
      const answer = await part('bytes=10-19', { 'If-Range': ifRange });
      expect([answer.status, answer.text], ifRange).to.deep.equal([200, CLIP]);
    }
    const notModified = await part('bytes=10-19', { 'If-None-Match': etag! });
    expect(notModified.status).to.equal(304);
  });

  it('answers a module the answer cache holds by the same rules', async function () {
    const address = '/m/@r/media@1.0.0/modules/player';
    const whole = await service.get(address);
    expect(whole.status).to.equal(200);
    expect(service.internals.answers.holds(address), 'the module answer is kept in front of Koa').to.equal(true);
    const first = await service.get(address, { Range: 'bytes=0-5' });
    expect([first.status, first.headers['content-range'], first.text, first.headers['accept-ranges']]).to.deep.equal([206, `bytes 0-5/${whole.body.length}`, whole.text.slice(0, 6), 'bytes']);
    const head = await service.get(address, { Range: 'bytes=-4' }, 'HEAD');
    expect([head.status, head.headers['content-range'], head.headers['content-length'], head.body.length]).to.deep.equal([206, `bytes ${whole.body.length - 4}-${whole.body.length - 1}/${whole.body.length}`, '4', 0]);
    const past = await service.get(address, { Range: `bytes=${whole.body.length}-` });
    expect([past.status, past.headers['content-range'], past.json().code]).to.deep.equal([416, `bytes */${whole.body.length}`, 'RANGE_NOT_SATISFIABLE']);
    const weak = await service.get(address, { Range: 'bytes=0-5', 'If-Range': `W/${whole.headers.etag}` });
    expect([weak.status, weak.text]).to.deep.equal([200, whole.text]);
  });
});
