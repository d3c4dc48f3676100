// ARCHITECTURE.md "Small functions": no function of src/ runs past 80 lines, closures included
// (each counted on its own, its inner functions inside its length). Read from the compiler's
// parse of tsconfig.json's program, so what is measured is what is compiled.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  isArrowFunction,
  isConstructorDeclaration,
  isFunctionDeclaration,
  isFunctionExpression,
  isGetAccessorDeclaration,
  isIdentifier,
  isMethodDeclaration,
  isPropertyAssignment,
  isSetAccessorDeclaration,
  isVariableDeclaration,
  type Node,
  type SourceFile,
} from 'typescript/unstable/ast';
import { toPosix, withProgram } from './program.js';

export const FUNCTION_LINES_AT_MOST = 80;
/** Where scripts/compile-schemas.js writes the validators. */
const GENERATED = 'src/workspace/generated/';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const isFunction = (node: Node) =>
  isFunctionDeclaration(node) || isFunctionExpression(node) || isArrowFunction(node) || isMethodDeclaration(node) || isConstructorDeclaration(node) || isGetAccessorDeclaration(node) || isSetAccessorDeclaration(node);

/** The name a reader would look for: its own, else the variable or property it is given to. */
function nameOf(node: Node): string {
  const own = (node as { name?: Node }).name;
  if (own && isIdentifier(own)) return own.text;
  const { parent } = node;
  if (parent && (isVariableDeclaration(parent) || isPropertyAssignment(parent)) && isIdentifier(parent.name)) return parent.name.text;
  return '(anonymous)';
}

/** `file:line name (N lines)` of every function of `sourceFile` longer than `limit` lines. */
export function longFunctions(sourceFile: SourceFile, limit: number, label: string): string[] {
  const found: string[] = [];
  const visit = (node: Node): void => {
    if (isFunction(node)) {
      const first = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line;
      const last = sourceFile.getLineAndCharacterOfPosition(node.end).line;
      const lines = last - first + 1;
      if (lines > limit) found.push(`${label}:${first + 1} ${nameOf(node)} (${lines} lines)`);
    }
    node.forEachChild(visit);
  };
  visit(sourceFile);
  return found;
}

function longFunctionsOf(dir: string, under: string, limit: number): string[] {
  return withProgram(dir, ({ files, sourceFile }) =>
    [...files]
      // The validators ajv compiles from schemas/ at build time (README "Manifest schemas"; that
      // folder only) are not ours to shape.
      .filter((file) => file.startsWith(`${toPosix(dir)}/${under}`) && !file.startsWith(`${toPosix(dir)}/${GENERATED}`))
      .sort()
      .flatMap((file) => longFunctions(sourceFile(file)!, limit, toPosix(relative(dir, file)))),
  );
}

describe('the length of the functions of src/', () => {
  it(`has none over ${FUNCTION_LINES_AT_MOST} lines, closures included`, () => {
    expect(longFunctionsOf(root, 'src/', FUNCTION_LINES_AT_MOST)).to.deep.equal([]);
  });
});

describe('the function length check', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'core-lengths-'));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'nodenext' }, include: ['src'] }));
    const body = (count: number) => Array.from({ length: count }, (_, index) => `  const line${index} = ${index};`).join('\n');
    const source = [
      '/** A leading comment is not part of the function. */',
      `export function long() {\n${body(79)}\n}`, // 81 lines
      `export function fits() {\n${body(78)}\n}`, // 80 lines
      `export const outer = () => {\n  const inner = function () {\n${body(79)}\n  };\n  return inner;\n};`, // outer 84, inner 81
      `export class Holder {\n  method() {\n${body(79)}\n  }\n}`,
    ].join('\n');
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'a.ts'), source);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('finds a function, a closure inside one and a method past the limit, and spares one at it', () => {
    expect(longFunctionsOf(dir, 'src/', 80)).to.deep.equal(['src/a.ts:2 long (81 lines)', 'src/a.ts:163 outer (84 lines)', 'src/a.ts:164 inner (81 lines)', 'src/a.ts:248 method (81 lines)']);
  });
});
