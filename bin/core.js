#!/usr/bin/env node
// The `core` command: the CLI of src/cli in one file, dist/core.cjs, made by `npm install`
// (the prepare step) and `npm run build` (scripts/build-cli.js), with the code V8 compiled it to.
import { fileURLToPath } from 'node:url';
import { loadBundle } from './load-bundle.js';

const bundle = fileURLToPath(new URL('../dist/core.cjs', import.meta.url));
let main;
try {
  ({ main } = loadBundle(bundle).exports);
} catch (error) {
  if (error?.code !== 'ENOENT' || error.path !== bundle) throw error;
  // A clone whose build has not run (or was removed): say what makes it, not a stack trace.
  process.stderr.write(`core: ${bundle} is missing; \`npm install\` or \`npm run build\` in ${fileURLToPath(new URL('..', import.meta.url))} makes it\n`);
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
