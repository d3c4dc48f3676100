#!/usr/bin/env node
// The `core` command. The CLI is compiled from src/cli by `npm install` (the prepare step).
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`core: ${error && error.stack ? error.stack : error}\n`);
    process.exitCode = 1;
  },
);
