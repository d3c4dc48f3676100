// The place in a source of a place in code esbuild wrote, read from its inline source map
// (src/bundlers/inline-source-map.ts, README "Bundling real code"): how a parsed read is placed.
import { expect } from 'chai';
import * as esbuildApi from 'esbuild';
import { inlineMappedPlace } from '../../src/bundlers/inline-source-map.js';

describe('inlineMappedPlace', () => {
  // Types removed and lines joined move each read in the output: the map, not its place there, says where the source wrote it.
  it('places each read of the output at its line and column of the source, earlier and later in the map alike', async () => {
    const source = 'type Url = string;\nexport function later(): Url {\n  return process.env.A as Url;\n}\n\n\nexport const b: Url = (process.env.B as Url) ?? "";\nexport const c = [1, 2].map((n: number) => n + Number(process.env.C));\n';
    const { code } = await esbuildApi.transform(source, { loader: 'ts', sourcemap: 'inline', sourcefile: 'app/env/index.ts' });
    const places = [...code.matchAll(/process\.env\.(\w)/g)].map((match) => ({ member: match[1], ...inlineMappedPlace(code, match.index) }));
    const lines = source.split('\n');
    const written = (line: number, member: string) => lines[line - 1]!.indexOf(`process.env.${member}`);
    expect(places).to.deep.equal([
      { member: 'A', source: 'app/env/index.ts', line: 3, column: written(3, 'A') },
      { member: 'B', source: 'app/env/index.ts', line: 7, column: written(7, 'B') },
      { member: 'C', source: 'app/env/index.ts', line: 8, column: written(8, 'C') },
    ]);
  });

  it('places nothing in code without an inline map, or past its end', () => {
    expect(inlineMappedPlace('var a = process.env.A;\n', 8)).to.equal(null);
    const code = 'var a = 1;\n//# sourceMappingURL=data:application/json;base64,' + Buffer.from(JSON.stringify({ version: 3, sources: ['a.ts'], mappings: 'AAAA' })).toString('base64');
    expect(inlineMappedPlace(code, 4)).to.deep.equal({ source: 'a.ts', line: 1, column: 0 });
    expect(inlineMappedPlace(code, code.length - 3)).to.equal(null);
  });
});
