// Names bound once to `import.meta.url` (README "Workspaces"): told by scope analysis, so a
// parameter or an inner binding of the same name, a name written again, a `URL` of the code's own
// and a base read otherwise are told apart from `new URL('<literal>', here)`.
import { expect } from 'chai';
import { heldMetaUrlBases } from '../../src/bundlers/held-meta-url.js';

const summary = (code: string) => heldMetaUrlBases(code).map(({ name, uses, otherUses }) => ({ name, uses: uses.map((use) => use.reference), otherUses }));

describe('heldMetaUrlBases', () => {
  it('finds a name bound to import.meta.url, or destructured from import.meta, and its literal new URL uses', () => {
    expect(summary("const here = import.meta.url;\nexport const a = new URL('./a.svg', here);\n")).to.deep.equal([{ name: 'here', uses: ['./a.svg'], otherUses: false }]);
    expect(summary('const { url } = import.meta;\nexport const a = new URL("b.json", url);\n')).to.deep.equal([{ name: 'url', uses: ['b.json'], otherUses: false }]);
    expect(summary('function f(){const{url:e}=import.meta;return new URL(`./c.png`,e)}export{f};')).to.deep.equal([{ name: 'e', uses: ['./c.png'], otherUses: false }]);
  });

  it('tells apart a parameter of the same name, a base read otherwise, a computed address and a URL of the code\'s own', () => {
    expect(summary("const here = import.meta.url;\nexport const f = (here) => new URL('./a.svg', here);\n")).to.deep.equal([{ name: 'here', uses: [], otherUses: false }]);
    expect(summary("const here = import.meta.url;\nfetch(here);\nnew URL('./a.svg', here);\n")).to.deep.equal([{ name: 'here', uses: ['./a.svg'], otherUses: true }]);
    expect(summary("const here = import.meta.url;\nconst n = 'a';\nnew URL('./' + n, here);\n")).to.deep.equal([{ name: 'here', uses: [], otherUses: true }]);
    expect(summary("class URL { constructor(a, b) {} }\nconst here = import.meta.url;\nnew URL('./a.svg', here);\n")).to.deep.equal([{ name: 'here', uses: [], otherUses: true }]);
  });

  it('takes no name written again, nor import.meta destructured for more than url, nor code that does not parse', () => {
    expect(summary("let here = import.meta.url;\nhere = location.href;\nnew URL('./a.svg', here);\n")).to.deep.equal([]);
    expect(summary("const { url, resolve } = import.meta;\nnew URL('./a.svg', url);\n")).to.deep.equal([]);
    expect(summary("const here = import.meta.url;\nnew URL('./a.svg', here\n")).to.deep.equal([]);
  });
});
