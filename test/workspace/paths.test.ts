// Workspace-relative paths: forward slashes, never absolute, never out of the workspace.
import path from 'node:path';
import { expect } from 'chai';
import { dirOf, hasParentSegment, isInside, joinRelative, normalizeRelative, relativeTo, toWorkspacePath } from '../../src/workspace/paths.js';

describe('normalizeRelative', () => {
  it('resolves dot segments, turns backslashes into slashes and drops trailing slashes', () => {
    expect(normalizeRelative('./a/b/')).to.equal('a/b');
    expect(normalizeRelative('a/./b/../c')).to.equal('a/c');
    expect(normalizeRelative('a\\b\\c.ts')).to.equal('a/b/c.ts');
    expect(normalizeRelative('a//b')).to.equal('a/b');
  });

  it('is . for the base itself', () => {
    for (const input of ['', '.', './', 'a/..']) expect(normalizeRelative(input), input).to.equal('.');
  });

  it('keeps a climb out visible as ..', () => {
    expect(normalizeRelative('a/../../b')).to.equal('../b');
  });

  it('is null for absolute paths, Windows ones included', () => {
    for (const input of ['/etc/passwd', '\\server\\share', 'C:\\x', 'c:/x']) expect(normalizeRelative(input), input).to.equal(null);
  });
});

describe('hasParentSegment', () => {
  it('tells a `..` segment, not a name holding `..` nor a `.` segment', () => {
    for (const parent of ['..', '../x', 'a/..', 'a/../b']) expect(hasParentSegment(parent), parent).to.equal(true);
    for (const other of ['a..b/x', 'a/b..', '..a', '.', './x', 'a/./b']) expect(hasParentSegment(other), other).to.equal(false);
  });
});

describe('isInside', () => {
  it('is false for .. and paths that begin with it, true otherwise', () => {
    expect(isInside('..')).to.equal(false);
    expect(isInside('../a')).to.equal(false);
    expect(isInside('a')).to.equal(true);
    expect(isInside('.')).to.equal(true);
    expect(isInside('..a')).to.equal(true);
  });
});

describe('joinRelative', () => {
  it('joins and normalizes, with . for the root', () => {
    expect(joinRelative('packages/app', './main/index.ts')).to.equal('packages/app/main/index.ts');
    expect(joinRelative('.', 'main')).to.equal('main');
    expect(joinRelative('app', '.')).to.equal('app');
    expect(joinRelative('app', '..')).to.equal('.');
  });
});

describe('dirOf', () => {
  it('is the directory of a file, . at the top', () => {
    expect(dirOf('app/main/index.ts')).to.equal('app/main');
    expect(dirOf('core.json')).to.equal('.');
  });
});

describe('relativeTo', () => {
  it('is the path from one workspace directory to another, . for the same', () => {
    expect(relativeTo('app/src', 'app/src/widgets/badge')).to.equal('widgets/badge');
    expect(relativeTo('.', 'app')).to.equal('app');
    expect(relativeTo('app', 'app')).to.equal('.');
    expect(relativeTo('app/src', 'app/other')).to.equal('../other');
  });
});

describe('toWorkspacePath', () => {
  const root = path.resolve('/work/space');
  it('is the relative path with forward slashes of a file under the root', () => {
    expect(toWorkspacePath(root, path.join(root, 'app', 'main', 'index.ts'))).to.equal('app/main/index.ts');
    expect(toWorkspacePath(root, root)).to.equal('.');
  });

  it('is null outside the root, a sibling with a common prefix included', () => {
    expect(toWorkspacePath(root, path.resolve('/work'))).to.equal(null);
    expect(toWorkspacePath(root, path.resolve('/work/space-other/x'))).to.equal(null);
    expect(toWorkspacePath(root, path.resolve('/elsewhere/file'))).to.equal(null);
  });

  it('keeps a file whose name begins with two dots', () => {
    expect(toWorkspacePath(root, path.join(root, '..config'))).to.equal('..config');
  });
});

describe('normalizeRelative, joinRelative and dirOf, paths already normal', () => {
  // What path.posix makes of them: the plain paths a read joins take a shorter way, to the same answer.
  const normalized = (input: string) => {
    const slashed = input.replace(/\\/g, '/');
    if (slashed.startsWith('/') || /^[a-zA-Z]:/.test(slashed)) return null;
    const normal = path.posix.normalize(slashed).replace(/\/+$/, '');
    return normal === '' ? '.' : normal;
  };
  const joined = (base: string, relative: string) => {
    const result = path.posix.normalize(`${base}/${relative}`).replace(/\/+$/, '');
    return result.startsWith('./') ? result.slice(2) : result === '' ? '.' : result;
  };
  const inputs = ['a', 'a/b.ts', './a/b.ts', '././a', './.../x', './/a', './a/', './', '...', 'a/.../b', '.a/b', 'a/.b', 'a./b', 'a/b.', '.', '..', './a', 'a/.', 'a/..', '../a', 'a/./b', 'a/../b', 'a//b', 'a/', '/a', '', 'a\\b', 'c:x', 'C:/x', 'node_modules/x', 'a/b/../../..', '@scope/name', 'a b/c'];

  it('are what path.posix makes of every path, normal or not', () => {
    for (const input of inputs) expect(normalizeRelative(input), input).to.equal(normalized(input));
    for (const base of inputs) for (const relative of inputs) expect(joinRelative(base, relative), `${base} + ${relative}`).to.equal(joined(base, relative));
    for (const input of [...inputs, 'a/b/c', 'a//b/c', 'a/b//c', '/a', '//a', 'a/b/', '/']) expect(dirOf(input), input).to.equal(path.posix.dirname(input));
  });
});
