#!/usr/bin/env node
// The `core` command: the CLI of src/cli in one file, dist/core.cjs, made by `npm install`
// (the prepare step) and `npm run build` (scripts/build-cli.js), with the code V8 compiled it to.
import { fileURLToPath } from 'node:url';
import { loadBundle } from './load-bundle.js';

const { main } = loadBundle(fileURLToPath(new URL('../dist/core.cjs', import.meta.url))).exports;

main(process.argv.slice(2)).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`core: ${error && error.stack ? error.stack : error}\n`);
    process.exitCode = 1;
  },
);
