// A written sheet's address of another output from the origin's root (`@import url(/m/...)`), made
// relative in `core dist`'s files, whose layout has no `/m/` (README "Distribution: core dist").
import { expect } from 'chai';
import type { DistributedKind, ModuleOutcome } from '../../src/dist/judge-module.js';
import { relativeServedAddresses } from '../../src/dist/served-addresses.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { moduleModel } from '../helpers/models.js';

const file = (path: string, kind: DistributedKind, text = '') => ({ path, kind, content: Buffer.from(text), hash: contentHash(Buffer.from(text)), size: text.length });
const theme = moduleModel('theme', { package: '@t/lib' });
const green = moduleModel('widgets/green', { package: '@t/lib' });
const sheet = '@import "/m/@t/lib@1.0.0/styles/widgets/green";@import url(/m/@t/lib@1.0.0/styles/gone);.a{background:url("/m/%40t/lib@1.0.0/assets/widgets/green/a%20b.png")}.b{background:url(/images/x.png)}';
const outcomes: ModuleOutcome[] = [
  { status: 'written', module: theme, target: 'browser', imports: [], files: [file('@t/lib@1.0.0/modules/theme.js', 'code'), file('@t/lib@1.0.0/styles/theme.css', 'styles', sheet)] },
  { status: 'written', module: green, target: 'browser', imports: [], files: [file('@t/lib@1.0.0/styles/widgets/green.css', 'styles', '.g{}'), file('@t/lib@1.0.0/assets/widgets/green/a b.png', 'asset')] },
];

describe('relativeServedAddresses', function () {
  const { outcomes: made, unserved } = relativeServedAddresses(outcomes);
  const written = made[0]!.status === 'written' ? made[0]!.files[1]! : null;

  it('writes the relative path of each output core dist writes, and keeps an address outside /m/', function () {
    expect(Buffer.from(written!.content).toString()).to.equal('@import "widgets/green.css";@import url(/m/@t/lib@1.0.0/styles/gone);.a{background:url(../assets/widgets/green/a%20b.png)}.b{background:url(/images/x.png)}');
  });

  it('hashes and sizes the bytes written', function () {
    expect(written!.hash).to.equal(contentHash(written!.content));
    expect(written!.size).to.equal(written!.content.byteLength);
  });

  it('tells the addresses under /m/ that no output written has', function () {
    expect([...unserved]).to.deep.equal([[theme.specifier, ['/m/@t/lib@1.0.0/styles/gone']]]);
  });
});
