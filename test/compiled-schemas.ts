// Loaded before every other file of the tests (.mocharc.json): the validators compiled from
// schemas/ are build output (scripts/compile-schemas.js), so a test run without a build, or
// after a schema or the compiler changed, compiles them first.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const compiler = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'scripts', 'compile-schemas.js');
const { SCHEMAS, schemaFile, generatedFile, compileSchemas } = (await import(compiler)) as {
  SCHEMAS: string[];
  schemaFile: (kind: string) => string;
  generatedFile: (kind: string) => string;
  compileSchemas: () => Promise<void>;
};
const modified = (file: string) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : -1);
if (SCHEMAS.some((kind) => modified(generatedFile(kind)) < Math.max(modified(schemaFile(kind)), modified(compiler)))) await compileSchemas();
