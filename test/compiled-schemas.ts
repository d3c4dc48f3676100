// Loaded before every other file of the tests (.mocharc.json): the validators compiled from
// schemas/ are build output (scripts/compile-schemas.js), so a test run without a build, or
// after a schema, the compiler or ajv changed, compiles them first.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const compiler = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'scripts', 'compile-schemas.js');
const { SCHEMAS, isStale, compileSchemas } = (await import(compiler)) as {
  SCHEMAS: string[];
  isStale: (kind: string) => boolean;
  compileSchemas: () => Promise<void>;
};
// By what each module says it was made from (a hash of its schema, the compiler and ajv's version), not by times.
if (SCHEMAS.some(isStale)) await compileSchemas();
