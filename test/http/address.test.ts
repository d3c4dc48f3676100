// Parsing /m/ addresses: every escape answers OUTPUT_NOT_AVAILABLE, broken encoding REQUEST_INVALID.
import { expect } from 'chai';
import { parseAddress } from '../../src/http/address.js';
import { ServiceError, type ErrorCode } from '../../src/http/errors.js';

function refusal(path: string): ErrorCode {
  try {
    parseAddress(path);
  } catch (error) {
    expect(error).to.be.instanceOf(ServiceError);
    return (error as ServiceError).code;
  }
  throw new Error(`${path} was parsed`);
}

describe('parseAddress', () => {
  it('reads a scoped package, its version, the kind and the subpath', () => {
    expect(parseAddress('/m/@acme/app@1.0.0/modules/main')).to.deep.equal({ kind: 'modules', packageName: '@acme/app', version: '1.0.0', segments: ['main'] });
  });

  it('reads an unscoped package', () => {
    expect(parseAddress('/m/app@2.0.0-beta.1/styles/main')).to.deep.equal({ kind: 'styles', packageName: 'app', version: '2.0.0-beta.1', segments: ['main'] });
  });

  it('keeps every segment of a multi-segment subpath, and of an asset after it', () => {
    expect(parseAddress('/m/@acme/app@1.0.0/modules/widgets/badge').segments).to.deep.equal(['widgets', 'badge']);
    expect(parseAddress('/m/@acme/app@1.0.0/assets/widgets/badge/logo.svg')).to.deep.equal({ kind: 'assets', packageName: '@acme/app', version: '1.0.0', segments: ['widgets', 'badge', 'logo.svg'] });
  });

  it('decodes each segment once', () => {
    expect(parseAddress('/m/%40acme/app%401.0.0/assets/main/my%20logo.svg')).to.deep.equal({ kind: 'assets', packageName: '@acme/app', version: '1.0.0', segments: ['main', 'my logo.svg'] });
  });

  it("decodes an encoded '%' once to a file name's own '%', and never further", () => {
    expect(parseAddress('/m/@acme/app@1.0.0/assets/main/a%2520b.svg').segments).to.deep.equal(['main', 'a%20b.svg']);
    expect(parseAddress('/m/@acme/app@1.0.0/assets/main/c%2523d.svg').segments).to.deep.equal(['main', 'c%23d.svg']);
    expect(parseAddress('/m/@acme/app@1.0.0/assets/main/p%25.svg').segments).to.deep.equal(['main', 'p%.svg']);
  });

  it('answers OUTPUT_NOT_AVAILABLE for a path that climbs out of a module, in any encoding', () => {
    const escapes = [
      '/m/@acme/app@1.0.0/assets/main/../../../package.json',
      '/m/@acme/app@1.0.0/assets/main/./logo.svg',
      '/m/@acme/app@1.0.0/assets/main/%2e%2e/secret',
      '/m/@acme/app@1.0.0/assets/main/%2E%2E/secret',
      '/m/@acme/app@1.0.0/assets/main/.%2e/secret',
      '/m/@acme/app@1.0.0/assets/main/..%2fsecret',
      '/m/@acme/app@1.0.0/assets/main/%2e%2e%2fsecret',
      '/m/@acme/app@1.0.0/assets/main/..%5csecret',
      '/m/@acme/app@1.0.0/assets/main/%5c..%5csecret',
      '/m/@acme/app@1.0.0/assets/main/%252e%252e/secret',
      '/m/@acme/app@1.0.0/assets/main/%25252e/secret',
      '/m/@acme/app@1.0.0/assets/main/..\\secret',
      '/m/@acme/app@1.0.0/assets/main\\..\\..\\secret',
      '/m/@acme/app@1.0.0/assets/main//logo.svg',
      '/m/@acme/app@1.0.0/assets/main/%00',
    ];
    for (const path of escapes) expect(refusal(path), path).to.equal('OUTPUT_NOT_AVAILABLE');
  });

  it('answers REQUEST_INVALID for malformed percent-encoding', () => {
    for (const path of ['/m/@acme/app@1.0.0/modules/%', '/m/@acme/app@1.0.0/modules/ma%zzin', '/m/@acme/app@1.0.0/assets/main/%c3%28.svg', '/m/@acme/app@1.0.0/modules/%E0%A4%A']) {
      expect(refusal(path), path).to.equal('REQUEST_INVALID');
    }
  });

  it('answers OUTPUT_NOT_AVAILABLE for an address without version, kind or subpath', () => {
    const incomplete = [
      '/m/',
      '/m/@acme/app/modules/main',
      '/m/@acme/app@/modules/main',
      '/m/@1.0.0/modules/main',
      '/m/app/modules/main',
      '/m/@acme/app@1.0.0',
      '/m/@acme/app@1.0.0/modules',
      '/m/@acme/app@1.0.0/modules/',
      '/m/@acme/app@1.0.0/sources/main',
      '/m/@acme/app@1.0.0/modules/main/',
    ];
    for (const path of incomplete) expect(refusal(path), path).to.equal('OUTPUT_NOT_AVAILABLE');
  });

  it('shortens a huge address in its message', () => {
    try {
      parseAddress(`/m/${'a'.repeat(5000)}`);
      expect.fail('parsed');
    } catch (error) {
      expect((error as Error).message.length).to.be.below(600);
    }
  });
});
