// Names a module's built code reads that no browser defines (README "Bundling real code"): Node's
// globals (`process`, `global`, `Buffer`, `__dirname`, `__filename`, CommonJS's `module` and
// `exports`) and, in a module bundling JSX, esbuild's default JSX factory `React`. esbuild keeps a
// name nothing binds as written, so such a module built, and `/state` called it valid, while the
// page threw "ReferenceError: process is not defined" when it imported it.
//
// Which references are free is the answer of a parser with scope analysis (acorn's tree,
// eslint-scope's unresolved references), never of a scan of the text by hand: a parameter, a
// local `const process`, a property name (`x.process`, `{ module: 1 }`) or a wrapper's binding
// (esbuild's `__commonJS((exports, module) => ...)`) is no free reference, and deciding that is
// what scope analysis is for. Only code holding one of the names as a word is parsed.
import { parse } from 'acorn';
import { analyze, type Scope } from 'eslint-scope';
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import { lineAndColumn } from '../workspace/json.js';
import type { PlacedReads } from './placed-reads.js';
import { bufferView } from '../outputs/buffer-view.js';

/** The globals of Node that no browser defines, and what to write instead. */
const NODE_GLOBALS = {
  process: 'only process.env.NODE_ENV is replaced at build time (it follows the variant\'s env): read another value as import.meta.env.<NAME> and define it in "core.define" of the package\'s package.json ({"import.meta.env.API_URL": "\\"https://...\\""}), or define the name read itself there ({"process.env.API_URL": "\\"https://...\\""})',
  global: "global is Node's name of the global object: write globalThis",
  Buffer: 'use Uint8Array (TextEncoder and TextDecoder for text, atob and btoa for base64), or import { Buffer } from a package that provides one for browsers',
  __dirname: "__dirname is CommonJS's: no ES module has it; use new URL('.', import.meta.url)",
  __filename: "__filename is CommonJS's: no ES module has it; use import.meta.url",
  module: "module is CommonJS's: no ES module has it; write export default ... or export const ...",
  exports: "exports is CommonJS's: no ES module has it; write export const ...",
} as const;

type NodeGlobal = keyof typeof NODE_GLOBALS;

/** esbuild's JSX factory and fragment when a tsconfig sets no `jsx`: `React.createElement`, `React.Fragment`. */
const JSX_FACTORY = 'React';

const JSX_SOURCE = /\.[jt]sx$/;

/** Each name's free references: whether one is evaluated when the module is imported, and where the code writes it, for `process`, which member. */
interface FreeUse {
  onImport: boolean;
  inFunction: boolean;
  member?: string;
}

/**
 * The free references to `names` in `code`, by name; null when the code does not parse (another
 * bundler's output, syntax acorn does not know yet): then nothing is judged, as the link names
 * judge nothing they cannot read.
 */
export function freeReferences(code: string, names: readonly string[]): Map<string, FreeUse> | null {
  const found = new Map<string, FreeUse>();
  if (names.length === 0 || !new RegExp(`\\b(?:${names.join('|')})\\b`).test(code)) return found;
  let globalScope: Scope | null;
  let branches: Array<[number, number]>;
  try {
    const tree = parse(code, { ecmaVersion: 'latest', sourceType: 'module', ranges: true });
    globalScope = analyze(tree as Parameters<typeof analyze>[0], { ecmaVersion: 2022, sourceType: 'module' }).globalScope;
    branches = conditionalRanges(tree as unknown as SyntaxNode);
  } catch {
    return null;
  }
  const wanted = new Set(names);
  for (const reference of globalScope?.through ?? []) {
    const { name } = reference.identifier;
    if (!wanted.has(name)) continue;
    const use = found.get(name) ?? { onImport: false, inFunction: false };
    const [start, end] = (reference.identifier as { range?: [number, number] }).range ?? [-1, undefined];
    // A read in a branch the import may not take (`typeof window < 'u' ? window : global`, a
    // `try`) may never run: told as one in a function is, never as a page that surely throws.
    if (isEvaluatedOnImport(reference.from) && !branches.some(([from, to]) => start >= from && start < to)) use.onImport = true;
    else use.inFunction = true;
    const member = name === 'process' && end !== undefined ? /^\s*\.\s*env\s*\.\s*([\w$]+)/.exec(code.slice(end, end + 200))?.[1] : undefined;
    if (member !== undefined && use.member === undefined) use.member = member;
    found.set(name, use);
  }
  return found;
}

interface SyntaxNode {
  type: string;
  range?: [number, number];
  [member: string]: unknown;
}

/** Where each node kind holds code that runs only on a condition (or whose throw is caught: a `try` block). */
const CONDITIONAL_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  ConditionalExpression: ['consequent', 'alternate'],
  LogicalExpression: ['right'],
  AssignmentExpression: ['right'], // counted only for `&&=`, `||=`, `??=` below
  IfStatement: ['consequent', 'alternate'],
  SwitchCase: ['consequent'],
  TryStatement: ['block'],
  WhileStatement: ['body'],
  ForStatement: ['body', 'update'],
  ForInStatement: ['body'],
  ForOfStatement: ['body'],
};

const LOGICAL_ASSIGNMENT = new Set(['&&=', '||=', '??=']);

/** The ranges of the code that runs only on a condition, found by a walk of acorn's tree (every member holding nodes). */
function conditionalRanges(tree: SyntaxNode): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const add = (value: unknown) => {
    for (const node of Array.isArray(value) ? value : [value]) if (isNode(node) && node.range) ranges.push(node.range);
  };
  const visit = (node: SyntaxNode) => {
    const members = CONDITIONAL_MEMBERS[node.type];
    if (members && (node.type !== 'AssignmentExpression' || LOGICAL_ASSIGNMENT.has(node.operator as string))) for (const member of members) add(node[member]);
    for (const [key, value] of Object.entries(node)) {
      if (key === 'range') continue;
      for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) visit(child);
    }
  };
  visit(tree);
  return ranges;
}

const isNode = (value: unknown): value is SyntaxNode => typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';

/**
 * A reference outside every function body runs when the module is imported; one in a function
 * (a method, an arrow, a class field's initializer, run when the class is constructed) only when
 * that is called. A class's static block runs where the class is defined.
 */
function isEvaluatedOnImport(scope: Scope | null): boolean {
  for (let current = scope; current !== null; current = current.upper) {
    if (current.type === 'function' || current.type === 'class-field-initializer') return false;
  }
  return true;
}

/** The names the code tests with `typeof`, anywhere (`typeof process !== 'undefined'`, minified `typeof process<"u"`): a guard whose reads are never told. */
function guardedNames(code: string, names: readonly string[]): Set<string> {
  const guarded = new Set<string>();
  for (const match of code.matchAll(new RegExp(`\\btypeof\\s*\\(?\\s*(${names.join('|')})\\b`, 'g'))) guarded.add(match[1]!);
  return guarded;
}

/**
 * The diagnostics of a browser build's code (README "Bundling real code"): a Node global read when
 * the module is imported is an error (the page throws at once); read inside a function only, a
 * warning (it throws when called, and such reads are often guarded); none for a name the code
 * tests with `typeof`. In a module bundling a `.jsx` or `.tsx` source, `React` unbound is an
 * error wherever it is: every JSX element evaluates it. `sources`: the files whose code is in
 * the output, placed from one read each.
 */
export function freeGlobalDiagnostics(reads: PlacedReads, built: Uint8Array, sources: readonly string[], entry: string): { errors: Diagnostic[]; warnings: Diagnostic[] } {
  const jsxSources = sources.filter((file) => JSX_SOURCE.test(file));
  const errors: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  // The bytes are searched for each name before any text is made of them: most outputs hold none.
  const bytes = bufferView(built);
  const names = [...Object.keys(NODE_GLOBALS), ...(jsxSources.length > 0 ? [JSX_FACTORY] : [])].filter((name) => bytes.includes(name));
  if (names.length === 0) return { errors, warnings };
  const code = bytes.toString('utf8');
  const free = freeReferences(code, names);
  if (free === null || free.size === 0) return { errors, warnings };
  const guarded = guardedNames(code, names);
  for (const [name, use] of free) {
    if (name === JSX_FACTORY) {
      errors.push(diagnostic('BUNDLE_ERROR', JSX_FACTORY_UNBOUND, jsxPlace(reads, jsxSources) ?? namePlace(reads, jsxSources, name) ?? { file: entry }));
      continue;
    }
    if (guarded.has(name)) continue;
    const where = namePlace(reads, sources, name) ?? { file: entry };
    const read = use.member === undefined ? name : `${name}.env.${use.member}`;
    const remedy = NODE_GLOBALS[name as NodeGlobal];
    if (use.onImport) {
      errors.push(diagnostic('BUNDLE_ERROR', `${read} is read when the module is imported, and ${name} is Node's: no browser defines it, so the page throws "ReferenceError: ${name} is not defined"; ${remedy}`, where));
    } else {
      warnings.push(diagnostic('BUNDLE_WARNING', `${read} is read inside a function (or in a branch the import may not take), and ${name} is Node's: no browser defines it, so that code throws "ReferenceError: ${name} is not defined" when it runs, unless it tests typeof ${name} !== 'undefined' first (a module that tests it is not told); ${remedy}`, where));
    }
  }
  return { errors, warnings };
}

const JSX_FACTORY_UNBOUND =
  'this JSX compiles to React.createElement (esbuild\'s default when no tsconfig sets "jsx"), and nothing binds React: every element throws "ReferenceError: React is not defined" on the page. Set "jsx": "react-jsx" in the compilerOptions of tsconfig.json (and "jsxImportSource" for a library other than React, such as "preact"), or import React from \'react\' in each file writing JSX';

// The first place a source writes `name` as a name read (not a property: `.name`, not a key
// `{ name: ...}`, not the operand of `typeof`), outside a line comment or a string of its line:
// the place only, as scope analysis of the output said that a read exists.
function namePlace(reads: PlacedReads, sources: readonly string[], name: string): { file: string; line: number; column: number } | null {
  const pattern = new RegExp(`(?<![\\w$.]|\\btypeof\\s*\\(?\\s*)${name}(?![\\w$])(?!\\s*:[^:])`, 'g');
  for (const file of sources) {
    const text = reads.text(file);
    if (text === null) continue;
    for (const match of text.matchAll(pattern)) {
      if (isCommentOrString(text, match.index)) continue;
      return { file, ...lineAndColumn(text, match.index) };
    }
  }
  return null;
}

// The first JSX element a source writes: a `<` opening a tag (`<div`, `<Card`, `<>`) where an
// expression starts.
function jsxPlace(reads: PlacedReads, sources: readonly string[]): { file: string; line: number; column: number } | null {
  const element = /(?:^|[(=,?:&|[{}]|\breturn)\s*(<[A-Za-z>])/gm;
  for (const file of sources) {
    const text = reads.text(file);
    if (text === null) continue;
    for (const match of text.matchAll(element)) {
      const at = match.index + match[0].length - match[1]!.length;
      if (isCommentOrString(text, at)) continue;
      return { file, ...lineAndColumn(text, at) };
    }
  }
  return null;
}

/** Whether `index` is after `//` or inside a quoted string of its line (a cheap judgement of a place, never of whether the read exists). */
function isCommentOrString(text: string, index: number): boolean {
  const before = text.slice(text.lastIndexOf('\n', index - 1) + 1, index);
  return /^(?:[^'"`/]|\/(?!\/)|'[^']*'|"[^"]*"|`[^`]*`)*(?:\/\/|['"`])/.test(before) || /^\s*\*/.test(before);
}
