// Package names and exact versions as the local CDN judges them before any lookup (README "The local CDN").
import { expect } from 'chai';
import { isExactVersion, isPackageName } from '../../src/workspace/package-name.js';

describe('isPackageName', function () {
  it('accepts the names npm accepts for a new package, scoped or not, and browser packages named like Node built-ins', function () {
    for (const name of ['lit', '@kit/ui', 'lodash.debounce', 'a-b_c', 'events', 'buffer']) expect(isPackageName(name), name).to.equal(true);
  });

  it('refuses what could climb, hide a separator or is no package name', function () {
    for (const name of ['', '.', '..', '%2e%2e', '.hidden', '_x', 'a/b', '@kit', '@kit/', '@kit/..', '@../x', '@kit/ui/x', 'Upper', 'a b', 'a~b', "a'b", 'a\\b', 'node_modules', 'x'.repeat(215)]) {
      expect(isPackageName(name), name).to.equal(false);
    }
  });
});

describe('isExactVersion', function () {
  it('accepts a version as a manifest writes it', function () {
    for (const version of ['1.0.0', '0.1.0-rc.1', '1.0.0+build.5']) expect(isExactVersion(version), version).to.equal(true);
  });

  it('refuses ranges, prefixes, partial versions and paths', function () {
    for (const version of ['', '1', '1.0', 'v1.0.0', '=1.0.0', '^1.0.0', ' 1.0.0', '1.0.0 ', '..', '1.0.0/..', 'latest']) expect(isExactVersion(version), version).to.equal(false);
  });
});
