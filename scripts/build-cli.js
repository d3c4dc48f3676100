// Bundles the command line (dist/cli/main.js, with the package's own extension and bundlers,
// which src/load-module.ts imports by path) into dist/core.cjs, the file bin/core.js runs, and
// keeps the code V8 compiles it to: Node reads one file instead of some 300 and compiles little
// of it, so `core run` starts answering sooner (ARCHITECTURE.md, "The command in one file").
// Run by `npm run build` and `prepare`, after tsc.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { parsed, precomputedMimeTypes } from './mime-types-precomputed.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

// The hashes of the compiled code that key the build cache (src/code-hash.ts), written beside it
// with the files they cover, so a start stats those files instead of reading and hashing them.
const { writeCodeHashes } = await import(pathToFileURL(`${root}dist/code-hash.js`).href);
writeCodeHashes();

// RxJS's own `exports` give Node its CommonJS build, whose index loads every operator; its ES
// modules let the bundle keep only the operators the service uses.
const rxjsManifest = require.resolve('rxjs/package.json');
const rxjsModules = path.join(path.dirname(rxjsManifest), JSON.parse(fs.readFileSync(rxjsManifest, 'utf8')).exports['.'].es2015);
const rxjsAsModules = {
  name: 'rxjs-as-modules',
  setup(build) {
    build.onResolve({ filter: /^rxjs(\/|$)/ }, (args) =>
      args.path === 'rxjs' ? { path: rxjsModules } : { errors: [{ text: `import ${args.path} from 'rxjs' instead: the bundle takes RxJS's ES modules, and this path would add its CommonJS build` }] },
    );
  },
};

// esbuild's API loaded when a build first needs it: a restart whose builds all come from the
// build cache never does (its ~8 ms of loading), and needs only its version, from its manifest.
// Every member the sources call is listed here; one missing fails this build.
const esbuildOnFirstUse = {
  name: 'esbuild-on-first-use',
  setup(build) {
    build.onResolve({ filter: /^esbuild$/ }, (args) => (args.namespace === 'esbuild-on-first-use' ? { path: 'esbuild', external: true } : { path: 'esbuild', namespace: 'esbuild-on-first-use' }));
    build.onLoad({ filter: /.*/, namespace: 'esbuild-on-first-use' }, () => ({
      contents: `let loaded = null;
const esbuild = () => (loaded ??= require('esbuild'));
export const build = (options) => esbuild().build(options);
export const context = (options) => esbuild().context(options);
export const transform = (input, options) => esbuild().transform(input, options);
export const stop = () => (loaded === null ? Promise.resolve() : loaded.stop());
export const version = (() => {
  try {
    return require('esbuild/package.json').version;
  } catch {
    return esbuild().version; // a manifest its package would not export
  }
})();
`,
      loader: 'js',
    }));
  },
};

// jsonc-parser's `main` is a UMD build that loads its parts by computed `require`s a bundle
// cannot follow; its ES modules (`module`) bundle like any.
const jsoncParserAsModules = {
  name: 'jsonc-parser-as-modules',
  setup(build) {
    build.onResolve({ filter: /^jsonc-parser$/ }, () => ({ path: path.join(path.dirname(require.resolve('jsonc-parser/package.json')), 'lib/esm/main.js') }));
  },
};

// One mime-types for all: koa's `accepts` asks for version 2 (its own copy, with mime-db's
// tables again), whose `lookup` of an extension, all it uses, version 3 answers alike. Loading
// a copy of the tables costs every start ~5 ms.
const oneMimeTypes = {
  name: 'one-mime-types',
  setup(build) {
    build.onResolve({ filter: /^mime-types$/ }, () => ({ path: require.resolve('mime-types') }));
  },
};

// mime-types with the tables it fills at load made by the build (scripts/mime-types-precomputed.js).
const mimeTypesPrecomputed = {
  name: 'mime-types-precomputed',
  setup(build) {
    const index = require.resolve('mime-types');
    build.onLoad({ filter: /[\\/]mime-types[\\/]index\.js$/ }, (args) => (args.path === index ? { contents: precomputedMimeTypes(index), loader: 'js', resolveDir: path.dirname(index) } : undefined));
  },
};

// The hashes of the service's own code (src/code-hash.ts, parts of the build cache's keys) read
// and hash some 50 files of dist/ at every start; the bundle's code is fixed when it is built,
// so the build computes them once, with that module itself, and the bundle holds the digests.
const codeHashes = {
  name: 'code-hashes-computed',
  setup(build) {
    const file = `${root}dist/code-hash.js`;
    build.onLoad({ filter: /[\\/]code-hash\.js$/ }, async (args) => {
      if (args.path !== file) return undefined;
      const digests = Object.entries(await import(pathToFileURL(file).href)).map(([name, member]) => {
        if (typeof member !== 'function' || member.length !== 0) throw new Error(`scripts/build-cli.js: ${file} exports ${name}, not a function of no arguments; update codeHashes`);
        return `export const ${name} = () => ${JSON.stringify(member())};`;
      });
      return { contents: digests.join('\n'), loader: 'js' };
    });
  },
};

// A JSON file of a dependency as a string for JSON.parse, not an object literal: V8 reads a
// string and parses JSON faster than it parses JavaScript.
const jsonParsed = {
  name: 'json-parsed',
  setup(build) {
    build.onLoad({ filter: /\.json$/ }, async (args) => ({ contents: `module.exports = ${parsed(JSON.parse(await fs.promises.readFile(args.path, 'utf8')))};`, loader: 'js' }));
  },
};

// esbuild gives each file importing a built-in module (\`import fs from 'node:fs'\`, 96 of them)
// its own copy of the module's members, a getter each (\`__toESM\`): some 8,000 of them, ~45 ms
// of every start. A built-in module is one object that never changes, so its first copy serves
// every importer: \`__oneNS\` keeps it, and the calls on built-ins are renamed to it (a name of
// the same length, so that the source map's columns hold).
const ONE_NAMESPACE_EACH = `const __oneNSKept = [new Map(), new Map()];
function __oneNS(mod, isNodeMode) {
  const kept = __oneNSKept[isNodeMode ? 1 : 0];
  let namespace = kept.get(mod);
  if (namespace === undefined) kept.set(mod, (namespace = __toESM(mod, isNodeMode)));
  return namespace;
}`;
const BUILTIN_IMPORT = /__toESM\(require\("([^"]+)"\)/g;

// Built-in modules a start rarely uses, loaded at their first use instead of with the bundle:
// node:https (with node:tls, ~4 ms of every start) serves only a team cache at an https:
// address. Their namespace is a proxy that loads the module when a member is first read.
const LOADED_ON_FIRST_USE = ['node:https'];
const ON_FIRST_USE = `function __onFirstUse(name, isNodeMode) {
  let namespace = null;
  return new Proxy({}, { get: (_, key) => (namespace ??= __oneNS(require(name), isNodeMode))[key] });
}`;

function oneNamespacePerBuiltin(file) {
  const text = fs.readFileSync(file, 'utf8');
  let renamed = 0;
  const changed = text.replace(BUILTIN_IMPORT, (call, name) => {
    if (!isBuiltin(name)) return call;
    renamed += 1;
    return `__oneNS(require(${JSON.stringify(name)})`;
  });
  // esbuild's helper or its call changed shape: the bundle would load as before, slower; say so.
  if (renamed === 0 || !/^var __toESM = /m.test(text)) throw new Error(`scripts/build-cli.js: no \`__toESM(require("node:..."))\` found in ${file}: esbuild's output changed; update oneNamespacePerBuiltin`);
  let deferred = changed;
  for (const name of LOADED_ON_FIRST_USE) {
    const importOf = new RegExp(`^(var import_\\w+ = )__oneNS\\(require\\(${JSON.stringify(name).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\)`, 'gm');
    const before = deferred;
    deferred = deferred.replace(importOf, (_, declaration) => `${declaration}__onFirstUse(${JSON.stringify(name)}`);
    if (deferred === before) throw new Error(`scripts/build-cli.js: no top-level import of ${name} found in ${file}; update LOADED_ON_FIRST_USE`);
  }
  fs.writeFileSync(file, deferred);
}

await esbuild.build({
  entryPoints: [`${root}dist/cli/main.js`],
  outfile: `${root}dist/core.cjs`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // esbuild stays a package of its own (it runs its binary from there; above); the others are
  // optional native add-ons that ws asks for and does without.
  external: ['esbuild', 'bufferutil', 'utf-8-validate'],
  // A CommonJS script, so that bin/load-bundle.js can compile it with V8's code cache; where
  // the sources ask for their module's address, they get the bundle's.
  define: { 'import.meta.url': 'bundleUrl' },
  banner: { js: `'use strict';\nconst bundleUrl = require('node:url').pathToFileURL(__filename).href;\n${ONE_NAMESPACE_EACH}\n${ON_FIRST_USE}` },
  plugins: [rxjsAsModules, jsoncParserAsModules, esbuildOnFirstUse, oneMimeTypes, mimeTypesPrecomputed, codeHashes, jsonParsed],
  sourcemap: true,
  legalComments: 'eof',
  logLevel: 'warning',
});

oneNamespacePerBuiltin(`${root}dist/core.cjs`);

// esbuild escapes what is not ASCII in strings, but not in the comments it keeps nor in some
// regular expressions. Escaped there too, the bundle is ASCII: bin/load-bundle.js reads it as
// Latin-1 (~4 ms less than decoding UTF-8) and V8 keeps it as one byte per character. A
// \uXXXX means the same in a comment and in a regular expression (in a template literal's raw
// text it would not: a line of code with a template literal is refused).
function asciiOnly(file) {
  const text = fs.readFileSync(file, 'utf8');
  const escaped = text.replace(/[^\x00-\x7f]+/g, (characters, at) => {
    const line = text.slice(text.lastIndexOf('\n', at) + 1, text.indexOf('\n', at));
    if (!/^\s*(\/\/|\/\*|\*)/.test(line) && line.includes('`')) throw new Error(`scripts/build-cli.js: ${file} has "${characters}" on a line with a template literal: escape it in its source`);
    return [...characters].map((character) => [...new Array(character.length).keys()].map((unit) => `\\u${character.charCodeAt(unit).toString(16).padStart(4, '0')}`).join('')).join('');
  });
  fs.writeFileSync(file, escaped);
}
asciiOnly(`${root}dist/core.cjs`);

// The code V8 compiles the bundle to, kept beside it: made by a Node of its own, as `core`
// runs, so that its flags are the ones a run has (V8 refuses a cache made under other flags).
execFileSync(process.execPath, ['--input-type=module', '--eval', `import { writeCodeCache } from ${JSON.stringify(`${root}bin/load-bundle.js`)}; await writeCodeCache(${JSON.stringify(`${root}dist/core.cjs`)});`], { stdio: 'inherit' });
