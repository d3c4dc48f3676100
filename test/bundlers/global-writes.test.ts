// What a build's code may write on the global object where its import runs, and the modules it
// imports for their effects (README "Bundling real code", Shims): the facts a module importing it
// for its effects is judged by.
import { expect } from 'chai';
import { shimFacts } from '../../src/bundlers/global-writes.js';

const facts = (code: string, runsNoCode: (specifier: string) => boolean = () => false) => shimFacts(new TextEncoder().encode(code), runsNoCode);

describe('shimFacts', () => {
  it('tells no write and no import of code naming neither', () => {
    expect(facts('document.title = "x";\n')).to.deep.equal({ writes: [], effects: [], others: [] });
    expect(facts('const processed = 1; export { processed };\n')).to.deep.equal({ writes: [], effects: [], others: [] });
  });

  it('tells each Node global the code writes on the global object where its import runs, by the shim rules', () => {
    expect(facts('globalThis.process = { env: {} };\nwindow.Buffer ??= B;\n')).to.deep.equal({ writes: ['Buffer', 'process'], effects: [], others: [] });
    expect(facts("Object.assign(globalThis, { global: globalThis });\nObject.defineProperty(self, 'setImmediate', { value: f });\n")).to.deep.equal({ writes: ['global', 'setImmediate'], effects: [], others: null });
    // Written only in a function nothing but an export refers to: it never runs on import.
    expect(facts('export function install() { globalThis.process = {}; }\n')).to.deep.equal({ writes: [], effects: [], others: [] });
    // A read is no write, nor a write to another object.
    expect(facts('console.log(process.env.X);\nconst o = {}; o.process = 1;\n')).to.deep.equal({ writes: [], effects: [], others: [] });
  });

  it('takes every Node global the code names as written when it writes the global object by a key not named, or hands it on', () => {
    expect(facts("const key = 'process';\nglobalThis[key] = {};\n")).to.deep.equal({ writes: ['process'], effects: [], others: null });
    expect(facts('const g = globalThis;\ng.process = {};\n')).to.deep.equal({ writes: ['process'], effects: [], others: null });
    expect(facts("install(window, 'Buffer');\n")).to.deep.equal({ writes: ['Buffer'], effects: [], others: null });
    expect(facts("Function('return this')().process = {};\n")).to.deep.equal({ writes: ['process'], effects: [], others: null });
    expect(facts('Object.assign(globalThis, shims); // process\n')).to.deep.equal({ writes: ['process'], effects: [], others: null });
  });

  // shim55: the other names, by which a use of a name nothing binds after an import for effects is judged.
  it('tells the other names the code writes on the global object where its import runs, and none where it only calls its methods', () => {
    const shim = "globalThis.cache = {};\nwindow.gtag = (what) => what;\nself.dataLayer ||= [];\nexport function later() { globalThis.late = 1; }\n";
    expect(facts(shim)).to.deep.equal({ writes: [], effects: [], others: ['cache', 'dataLayer', 'gtag'] });
    expect(facts("window.addEventListener('load', () => {});\nconsole.log(window.location.href, self.name);\n")).to.deep.equal({ writes: [], effects: [], others: [] });
    expect(facts("const key = 'cache';\nwindow[key] = {};\n")).to.deep.equal({ writes: [], effects: [], others: null });
  });

  it('lists the imports for effects only, in order, but those that run no code', () => {
    expect(facts('import "@p/a";\nimport { b } from "@p/b";\nimport"@p/theme";\nimport "@p/c";\nconsole.log(b);\n', (specifier) => specifier === '@p/theme')).to.deep.equal({ writes: [], effects: ['@p/a', '@p/c'], others: [] });
  });

  it('tells nothing of code that does not parse', () => {
    expect(facts('import "@p/a";\nprocess = ) (;\n')).to.equal(undefined);
  });
});
