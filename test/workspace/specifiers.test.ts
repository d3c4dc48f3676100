// Bare specifiers: the package an import names, and Node.js built-ins.
import { expect } from 'chai';
import { isBare, isBuiltin, parseBareSpecifier } from '../../src/workspace/specifiers.js';

describe('isBuiltin', () => {
  it('knows built-ins with and without the node: prefix, and their subpaths', () => {
    for (const specifier of ['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'path', 'node:test', 'crypto']) expect(isBuiltin(specifier), specifier).to.equal(true);
  });

  it('does not take packages for built-ins', () => {
    for (const specifier of ['lit', '@acme/fs', 'fs-extra', 'fs/promises/extra', './fs']) expect(isBuiltin(specifier), specifier).to.equal(false);
  });
});

describe('isBare', () => {
  it('is true for package names and node: specifiers', () => {
    for (const specifier of ['lit', 'lit/decorators.js', '@acme/app/main', 'node:fs']) expect(isBare(specifier), specifier).to.equal(true);
  });

  it('is false for relative and absolute paths, URLs, subpath imports and the empty string', () => {
    for (const specifier of ['./a.js', '../a.js', '.', '/a.js', 'https://cdn.test/a.js', 'data:text/javascript,', '#internal', '']) {
      expect(isBare(specifier), specifier).to.equal(false);
    }
  });
});

describe('parseBareSpecifier', () => {
  it('splits scoped and unscoped specifiers into package and subpath', () => {
    expect(parseBareSpecifier('lit')).to.deep.equal({ packageName: 'lit', subpath: '' });
    expect(parseBareSpecifier('lit/directives/class-map.js')).to.deep.equal({ packageName: 'lit', subpath: 'directives/class-map.js' });
    expect(parseBareSpecifier('@acme/app')).to.deep.equal({ packageName: '@acme/app', subpath: '' });
    expect(parseBareSpecifier('@acme/app/widgets/badge')).to.deep.equal({ packageName: '@acme/app', subpath: 'widgets/badge' });
  });

  it('is null for what names no package', () => {
    for (const specifier of ['./a.js', '@acme', '@acme/', '@/components/x', 'https://cdn.test/a.js']) expect(parseBareSpecifier(specifier), specifier).to.equal(null);
  });
});
