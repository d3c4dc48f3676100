// mime-types fills its tables (extension -> type, type -> extensions) when it is loaded, by
// scoring each of mime-db's ~2,500 types: ~15 ms of every start of `core`, the largest part of
// loading dist/core.cjs. scripts/build-cli.js runs that once and gives the bundle the module's
// own source with the tables it made, and of mime-db only what `charset` reads: every function
// of the module stays as it is, and answers as it did.
import fs from 'node:fs';
import { createRequire } from 'node:module';

/** `value` as source text that makes it: a string for JSON.parse, which V8 reads faster than the same object as JavaScript. */
export const parsed = (value) => `JSON.parse(${JSON.stringify(JSON.stringify(value))})`;

const LOAD_DB = "var db = require('mime-db')";
const FILL_TABLES = 'populateMaps(exports.extensions, exports.types)';

/** The source of mime-types' `index` (its path) with its tables filled, as JSON to parse. */
export function precomputedMimeTypes(index) {
  const source = fs.readFileSync(index, 'utf8');
  // Another version of mime-types: the bundle would fill its tables at load again; say so.
  if (source.split(LOAD_DB).length !== 2 || source.split(FILL_TABLES).length !== 2) {
    throw new Error(`scripts/mime-types-precomputed.js: ${index} no longer has \`${LOAD_DB}\` and \`${FILL_TABLES}\` once each; update it`);
  }
  const require = createRequire(index);
  const filled = require(index);
  const db = require('mime-db');
  const charsets = Object.fromEntries(Object.entries(db).filter(([, entry]) => entry.charset).map(([type, entry]) => [type, { charset: entry.charset }]));
  return source
    .replace(LOAD_DB, () => `var db = ${parsed(charsets)}`)
    .replace(FILL_TABLES, () => `Object.assign(exports.extensions, ${parsed(filled.extensions)}); Object.assign(exports.types, ${parsed(filled.types)}); exports._extensionConflicts.push(...${parsed(filled._extensionConflicts)})`);
}
