// The paths esbuild tries before the file it finds (src/workspace/resolution.ts, README "Bundling
// real code"): what a module's build depends on besides the files it read.
import { expect } from 'chai';
import { INSTALLED_EXTENSIONS, resolvedBeside, triedBefore, triedThrough } from '../../src/workspace/resolution.js';

describe('the paths esbuild tries before the file it found', () => {
  it('has none for an import naming its file exactly', () => {
    expect(triedBefore('src/unit.ts', 'src/unit.ts')).to.deep.equal([]);
  });

  it('lists the file as written and the extensions before the one added', () => {
    expect(triedBefore('src/unit', 'src/unit.js')).to.deep.equal(['src/unit', 'src/unit.tsx', 'src/unit.ts', 'src/unit.jsx']);
    expect(triedBefore('src/unit', 'src/unit.tsx')).to.deep.equal(['src/unit']);
  });

  // The order checked against esbuild 0.28 itself: with `part.ts` and one candidate present, the candidate is found.
  it("lists the JavaScript file, it with each extension added, then the TypeScript sources before the one TypeScript's rewrite found", () => {
    const added = (written: string) => ['.tsx', '.ts', '.jsx', '.js', '.css', '.json'].map((extension) => written + extension);
    expect(triedBefore('src/part.js', 'src/part.ts')).to.deep.equal(['src/part.js', ...added('src/part.js')]);
    expect(triedBefore('src/part.js', 'src/part.tsx')).to.deep.equal(['src/part.js', ...added('src/part.js'), 'src/part.ts']);
    expect(triedBefore('src/part.jsx', 'src/part.ts')).to.deep.equal(['src/part.jsx', ...added('src/part.jsx')]);
    expect(triedBefore('src/part.mjs', 'src/part.mts')).to.deep.equal(['src/part.mjs', ...added('src/part.mjs')]);
  });

  it("lists every file a directory's name could be, then the indexes before the one found", () => {
    expect(triedBefore('src/tools', 'src/tools/index.ts')).to.deep.equal(['src/tools.tsx', 'src/tools.ts', 'src/tools.jsx', 'src/tools.js', 'src/tools.css', 'src/tools.json', 'src/tools/index.tsx']);
  });

  it('inside node_modules (an installed package), in the order esbuild tries there: JavaScript first', () => {
    expect(triedBefore('lib/impl', 'lib/impl.js', INSTALLED_EXTENSIONS)).to.deep.equal(['lib/impl', 'lib/impl.jsx']);
    expect(triedBefore('lib/impl', 'lib/impl.ts', INSTALLED_EXTENSIONS)).to.deep.equal(['lib/impl', 'lib/impl.jsx', 'lib/impl.js', 'lib/impl.tsx']);
    expect(triedBefore('lib/x.js', 'lib/x.ts', INSTALLED_EXTENSIONS)).to.deep.equal(['lib/x.js', 'lib/x.js.jsx', 'lib/x.js.js', 'lib/x.js.tsx', 'lib/x.js.ts', 'lib/x.js.css', 'lib/x.js.json']);
    expect(triedBefore('tools', 'tools/index.js', INSTALLED_EXTENSIONS)).to.deep.equal(['tools.jsx', 'tools.js', 'tools.tsx', 'tools.ts', 'tools.css', 'tools.json', 'tools/index.jsx']);
  });

  it('tells a file beside the written path from one reached elsewhere (through a link)', () => {
    expect([resolvedBeside('src/unit', 'src/unit.ts'), resolvedBeside('src/tools', 'src/tools/index.ts'), resolvedBeside('src/part.js', 'src/part.ts')]).to.deep.equal([true, true, true]);
    expect(resolvedBeside('src/parts/pad.ts', 'src/pad-a.ts')).to.equal(false);
  });

  it('lists, for a mapping, every path of each earlier target, then those of the target that found it; none when no target did', () => {
    const tried = triedThrough(['overrides/part.ts', 'src/parts/part.ts'], 'src/parts/part.ts');
    expect(tried).to.include.members(['overrides/part.ts', 'overrides/part.ts.ts', 'overrides/part.ts/index.ts']);
    expect(tried).to.not.include('src/parts/part.ts');
    expect(triedThrough(['src/unit'], 'src/unit.ts')).to.deep.equal(['src/unit', 'src/unit.tsx']);
    expect(triedThrough(['elsewhere/x'], 'src/unit.ts')).to.deep.equal([]);
  });
});
