// The internal specifier of a shared file (README "Shared files"), as a downloaded cache entry
// names one: only a file of the module's own package, by segments an address carries unchanged,
// since `core dist` makes a file name of it.
import { expect } from 'chai';
import { isSharedSpecifier } from '../../src/workspace/shared-files.js';

describe('isSharedSpecifier', () => {
  it('takes the shared files of the package', () => {
    expect(isSharedSpecifier('@r/lib', '@r/lib/.shared/src/registry.ts')).to.equal(true);
    expect(isSharedSpecifier('lib', 'lib/.shared/registry.js')).to.equal(true);
  });

  it('refuses another package, a path leaving the package, and names an address would change', () => {
    for (const specifier of ['@r/other/.shared/x.ts', '@r/lib/x.ts', '@r/lib/.shared/../../../evil.ts', '@r/lib/.shared/./x.ts', '@r/lib/.shared/a//b.ts', '@r/lib/.shared/a b.ts', '@r/lib/.shared/', '@r/lib/.shared/a\\..\\b.ts']) {
      expect(isSharedSpecifier('@r/lib', specifier), specifier).to.equal(false);
    }
  });
});
