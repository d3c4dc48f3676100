// Compiles the JSON Schemas of schemas/ into standalone validators, one TypeScript module
// each in src/workspace/generated/, by which the service judges the manifests: the schemas
// are the one statement of the rules, and starting the service compiles nothing (README
// "Workspaces"). Build output, not kept in git: run by `npm run build`, `prepare` and
// `typecheck` before tsc, and by the tests' root hooks when a schema is newer than its module.
// ajv writes its validator with `require`s of its run-time helpers; esbuild joins them into
// the module, so ajv is needed to build, not to run.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
export const SCHEMAS = ['core', 'package', 'module'];
export const schemaFile = (kind) => `${root}schemas/${kind}.schema.json`;
export const generatedFile = (kind) => `${root}src/workspace/generated/${kind}-schema.ts`;

/** The TypeScript module of the validator of `schemas/<kind>.schema.json`. */
export async function compiledSchema(kind) {
  // Strict, so a keyword ajv does not know fails the build; union types are plain JSON Schema.
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, code: { source: true, esm: true } });
  const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaFile(kind), 'utf8')));
  const bundled = await esbuild.build({
    stdin: { contents: standaloneCode.default(ajv, validate), resolveDir: root, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    logLevel: 'warning',
  });
  return `// @ts-nocheck\n// Made by scripts/compile-schemas.js from schemas/${kind}.schema.json: do not edit.\n${bundled.outputFiles[0].text}`;
}

export async function compileSchemas() {
  fs.mkdirSync(`${root}src/workspace/generated`, { recursive: true });
  for (const kind of SCHEMAS) {
    const temporary = `${generatedFile(kind)}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, await compiledSchema(kind));
    fs.renameSync(temporary, generatedFile(kind));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await compileSchemas();
