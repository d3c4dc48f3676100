// Bundles the command line (dist/cli/main.js, with the package's own extension and bundlers,
// which src/load-module.ts imports by path) into dist/core.js, the file bin/core.js runs: Node
// reads one file instead of some 300, so `core run` starts answering sooner (ARCHITECTURE.md,
// "The command in one file"). Run by `npm run build` and `prepare`, after tsc.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

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

// esbuild stays a package of its own (it runs its binary from there). Required, not imported:
// Node's import of a CommonJS file first scans its text for the names it exports.
const esbuildRequired = {
  name: 'esbuild-required',
  setup(build) {
    build.onResolve({ filter: /^esbuild$/ }, (args) => (args.namespace === 'esbuild-required' ? { path: 'esbuild', external: true } : { path: 'esbuild', namespace: 'esbuild-required' }));
    build.onLoad({ filter: /.*/, namespace: 'esbuild-required' }, () => ({ contents: "module.exports = require('esbuild');", loader: 'js' }));
  },
};

// A JSON file (mime-db's tables, twice: 300 kB) as a string for JSON.parse, not an object
// literal: V8 reads a string and parses JSON faster than it parses JavaScript.
const jsonParsed = {
  name: 'json-parsed',
  setup(build) {
    build.onLoad({ filter: /\.json$/ }, async (args) => ({ contents: `module.exports = JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(await fs.promises.readFile(args.path, 'utf8'))))});`, loader: 'js' }));
  },
};

await esbuild.build({
  entryPoints: [`${root}dist/cli/main.js`],
  outfile: `${root}dist/core.js`,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Optional native add-ons that ws and chokidar ask for and do without.
  external: ['fsevents', 'bufferutil', 'utf-8-validate'],
  // The CommonJS packages bundled (koa and its middleware, ws) call require() for Node's own
  // modules, and esbuild is required (above).
  banner: { js: "import { createRequire as createRequireOfCore } from 'node:module';\nconst require = createRequireOfCore(import.meta.url);" },
  plugins: [rxjsAsModules, esbuildRequired, jsonParsed],
  sourcemap: true,
  legalComments: 'eof',
  logLevel: 'warning',
});
