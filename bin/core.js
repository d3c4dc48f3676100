#!/usr/bin/env node
// The `core` command: the CLI of src/cli in one file, dist/core.cjs, made by `npm install`
// (the prepare step) and `npm run build` (scripts/build-cli.js), with the code V8 compiled it to.
// A CommonJS script (bin/package.json): Node starts one ~10 ms sooner than an ES module
// (README "Performance").
'use strict';
const path = require('node:path');
const { loadBundle } = require('./load-bundle.js');

const root = path.resolve(__dirname, '..');
const bundle = path.join(root, 'dist', 'core.cjs');
let main;
try {
  ({ main } = loadBundle(bundle).exports);
} catch (error) {
  if (error?.code !== 'ENOENT' || error.path !== bundle) throw error;
  // A clone whose build has not run (or was removed): say what makes it, not a stack trace.
  process.stderr.write(`core: ${bundle} is missing; \`npm install\` or \`npm run build\` in ${root}${path.sep} makes it\n`);
  process.exit(1);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`core: ${error && error.stack ? error.stack : error}\n`);
    process.exitCode = 1;
  },
);
