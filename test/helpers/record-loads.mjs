// Preloaded with `node --import` by test/cli/one-file.test.ts: appends the file of every module
// the process loads, ES module or CommonJS, one per line, to $CORE_TEST_LOADS.
import fs from 'node:fs';
import Module, { register } from 'node:module';
import { fileURLToPath } from 'node:url';

const out = process.env.CORE_TEST_LOADS;
const note = (file) => fs.appendFileSync(out, `${file}\n`);

register(new URL('./record-loads-hooks.mjs', import.meta.url), { data: { out } });
const load = Module.prototype.load;
Module.prototype.load = function (file) {
  note(file);
  return load.call(this, file);
};
note(fileURLToPath(import.meta.url));
