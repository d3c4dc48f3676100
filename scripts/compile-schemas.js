// Compiles the JSON Schemas of schemas/ into standalone validators, one TypeScript module
// each in src/workspace/generated/, by which the service judges the manifests: the schemas
// are the one statement of the rules, and starting the service compiles nothing (README
// "Workspaces"). Build output, not kept in git: run by `npm run build`, `prepare` and
// `typecheck` before tsc, and by the tests' root hooks when a module was made from anything but
// what is here now (`sourceStamp`).
// ajv writes its validator with `require`s of its run-time helpers; esbuild joins them into
// the module, so ajv is needed to build, not to run.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
export const SCHEMAS = ['core', 'package', 'module'];
export const schemaFile = (kind) => `${root}schemas/${kind}.schema.json`;
export const generatedFile = (kind) => `${root}src/workspace/generated/${kind}-schema.ts`;

/**
 * What a validator is made from, as a hash: its schema's text, this compiler's and ajv's version.
 * Written into the module, it tells whether the module is still what a build would make now,
 * whatever the files' times say.
 */
export function sourceStamp(kind) {
  const ajvVersion = createRequire(import.meta.url)('ajv/package.json').version;
  const hash = crypto.createHash('sha256');
  for (const part of [fs.readFileSync(schemaFile(kind)), fs.readFileSync(fileURLToPath(import.meta.url)), ajvVersion]) hash.update(part).update('\0');
  return `// Made from: ${hash.digest('hex')}`;
}

/** Whether the module of `kind` is missing, or made from anything but what is here now. */
export const isStale = (kind) => !fs.existsSync(generatedFile(kind)) || !fs.readFileSync(generatedFile(kind), 'utf8').includes(`\n${sourceStamp(kind)}\n`);

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
  return `// @ts-nocheck\n// Made by scripts/compile-schemas.js from schemas/${kind}.schema.json: do not edit.\n${sourceStamp(kind)}\n${bundled.outputFiles[0].text}`;
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
