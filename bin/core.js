#!/usr/bin/env node
// The `core` command: the CLI of src/cli in one file, dist/core.js, made by `npm install`
// (the prepare step) and `npm run build` (scripts/build-cli.js).
import { main } from '../dist/core.js';

main(process.argv.slice(2)).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`core: ${error && error.stack ? error.stack : error}\n`);
    process.exitCode = 1;
  },
);
