// `/cdn/` addresses parsed (README "The local CDN"): one address has one spelling up to
// percent-encoding; anything that could climb, hide a separator or name no package is refused.
import { expect } from 'chai';
import fc from 'fast-check';
import { parseCdnAddress } from '../../src/development/cdn-address.js';

const refusal = (rest: string) => {
  try {
    parseCdnAddress(rest);
  } catch (error) {
    return (error as { code: string }).code;
  }
  return null;
};

describe('parseCdnAddress', function () {
  it('reads a package, its exact version and a subpath, scoped or not', function () {
    expect(parseCdnAddress('lit@3.1.0')).to.deep.equal({ name: 'lit', version: '3.1.0', subpath: '' });
    expect(parseCdnAddress('lit@3.1.0/decorators.js')).to.deep.equal({ name: 'lit', version: '3.1.0', subpath: 'decorators.js' });
    expect(parseCdnAddress('@kit/ui@3.0.0/a/b')).to.deep.equal({ name: '@kit/ui', version: '3.0.0', subpath: 'a/b' });
  });

  it('refuses `..`, `.`, their encodings, encoded separators, repeated slashes and names npm refuses', function () {
    for (const rest of ['..@0.1.0/secrets.local.json', '.@0.1.0', '%2e%2e@0.1.0', '%2E.@0.1.0', '..%2F..@0.1.0', '@kit%2F..@0.1.0', '@kit/..@0.1.0', 'lit@3.1.0//x.js', 'lit@3.1.0/./x.js', 'lit@3.1.0/a/../x.js', 'lit@3.1.0/', 'lit@3.1.0/%2e%2e/x', 'lit@3.1.0/a%2Fb', 'lit@3.1.0/a%5Cb', 'lit@3.1.0/%252e', 'Lit@3.1.0', 'l%20it@3.1.0', 'lit@^3.1.0', 'lit@v3.1.0', 'lit', '@kit@1.0.0', '@kit/ui/x@1.0.0']) {
      expect(refusal(rest), rest).to.equal('OUTPUT_NOT_AVAILABLE');
    }
    expect(refusal('lit@3.1.0/%E0%A4%A')).to.equal('REQUEST_INVALID');
  });

  it('reads every percent-encoded spelling of an address as that address', function () {
    const address = '@kit/ui@3.0.0/dir/file.js';
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: address.length, maxLength: address.length }), (encode) => {
        const spelled = [...address].map((char, i) => (encode[i] && char !== '/' ? `%${char.charCodeAt(0).toString(16).toUpperCase()}` : char)).join('');
        expect(parseCdnAddress(spelled)).to.deep.equal({ name: '@kit/ui', version: '3.0.0', subpath: 'dir/file.js' });
      }),
      { numRuns: 500, seed: 29 },
    );
  });
});
