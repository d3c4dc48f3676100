// A read taken as defined because of imports for effects, judged against the modules those
// imports run (README "Bundling real code", Shims).
import { expect } from 'chai';
import { diagnostic } from '../../src/workspace/diagnostics.js';
import { effectsShimRead, effectsShimUseText, effectsShimWarningText, judgeShimReads, type ShimFacts } from '../../src/workspace/shim-reads.js';

const warning = (read: string, name: string) => diagnostic('BUNDLE_WARNING', effectsShimWarningText(read, name, '@p/a', 'the remedy'), { file: 'app/main.js', line: 2, column: 3 });
const use = (name: string, how: 'read' | 'written') => diagnostic('BUNDLE_WARNING', effectsShimUseText(name, how, '@p/a', 'the remedy'), { file: 'app/main.js', line: 4, column: 1 });
const other = diagnostic('BUNDLE_WARNING', 'process.env.X is read inside a function (or in a branch the import may not take)', { file: 'app/main.js' });

describe('judgeShimReads', () => {
  const known = (table: Record<string, ShimFacts | null>) => (specifier: string) => table[specifier];

  it('reads back the read, the name and the remedy of its own warning only', () => {
    expect(effectsShimRead(warning('process.env.X', 'process'))).to.deep.equal({ read: 'process.env.X', name: 'process', remedy: 'the remedy', use: 'node' });
    expect(effectsShimRead(use('cache', 'written'))).to.deep.equal({ read: 'cache', name: 'cache', remedy: 'the remedy', use: 'written' });
    expect(effectsShimRead(use('$', 'read'))).to.deep.equal({ read: '$', name: '$', remedy: 'the remedy', use: 'read' });
    expect(effectsShimRead(other)).to.equal(undefined);
  });

  it('makes each read an error, at its place, when every module run through imports for effects is known and none writes its name', () => {
    const reads = [warning('process.env.X', 'process'), warning('Buffer', 'Buffer'), other];
    const judgement = judgeShimReads(reads, { writes: [], effects: ['@p/a'] }, known({ '@p/a': { writes: [], effects: ['@p/b'] }, '@p/b': { writes: ['Buffer'], effects: ['@p/a'] } }))!;
    expect(judgement.errors.map(({ kind, file, line, column }) => ({ kind, file, line, column }))).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'app/main.js', line: 2, column: 3 }]);
    expect(judgement.errors[0]!.message).to.include('process.env.X is read').and.to.include('(@p/a, @p/b,').and.to.include('the remedy');
    expect(judgement.replaced).to.deep.equal([reads[0]]);
    expect([...judgement.consulted.keys()]).to.deep.equal(['@p/a', '@p/b']);
  });

  it('leaves every read a warning when one module run is not known or not built', () => {
    for (const b of [undefined, null]) {
      const judgement = judgeShimReads([warning('process.env.X', 'process')], { writes: [], effects: ['@p/a'] }, known({ '@p/a': { writes: [], effects: ['@p/b'] }, ...(b === null ? { '@p/b': null } : {}) }))!;
      expect(judgement.errors).to.deep.equal([]);
      expect(judgement.consulted.get('@p/b')).to.equal(b);
    }
    expect(judgeShimReads([warning('process.env.X', 'process')], undefined, known({}))).to.equal(null);
    expect(judgeShimReads([other], { writes: [], effects: ['@p/a'] }, known({}))).to.equal(null);
  });

  // shim55: a name not Node's (`cache = {}`, `gtag()`), judged by the other names each module writes.
  it('makes a use of another name an error when every module run says which other names it writes and none writes it', () => {
    const reads = [use('cache', 'written'), use('gtag', 'read'), warning('process.env.X', 'process')];
    const judgement = judgeShimReads(reads, { writes: [], effects: ['@p/a'] }, known({ '@p/a': { writes: ['process'], effects: ['@p/b'], others: [] }, '@p/b': { writes: [], effects: [], others: ['gtag'] } }))!;
    expect(judgement.errors.map(({ kind, file, line, column }) => ({ kind, file, line, column }))).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'app/main.js', line: 4, column: 1 }]);
    expect(judgement.errors[0]!.message).to.include('cache is written when the module is imported').and.to.include('(@p/a, @p/b,').and.to.include('ReferenceError: cache is not defined').and.to.include('the remedy');
    expect(judgement.replaced).to.deep.equal([reads[0]]);
  });

  it('leaves a use of another name a warning when a module run may write any name, or its record does not say', () => {
    for (const others of [null, undefined]) {
      const reads = [use('cache', 'written'), warning('process.env.X', 'process')];
      const judgement = judgeShimReads(reads, { writes: [], effects: ['@p/a'] }, known({ '@p/a': { writes: [], effects: [], ...(others === null ? { others } : {}) } }))!;
      expect(judgement.replaced, String(others)).to.deep.equal([reads[1]]);
    }
  });
});
