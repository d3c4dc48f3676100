// Names a module's built code reads that no browser defines (README "Bundling real code"): Node's
// globals (`process`, `global`, `Buffer`, `__dirname`, `__filename`, CommonJS's `module` and
// `exports`) and, in a module bundling JSX, the first names of the JSX factory and fragment esbuild
// calls (`React` by default, `h` and `Fragment` where a tsconfig says so). esbuild keeps a
// name nothing binds as written, so such a module built, and `/state` called it valid, while the
// page threw "ReferenceError: process is not defined" when it imported it.
//
// Which references are free is the answer of a parser with scope analysis (acorn's tree,
// eslint-scope's unresolved references), never of a scan of the text by hand: a parameter, a
// local `const process`, a property name (`x.process`, `{ module: 1 }`) or a wrapper's binding
// (esbuild's `__commonJS((exports, module) => ...)`) is no free reference, and deciding that is
// what scope analysis is for. Only code holding one of the names as a word is parsed.
import { parse } from 'acorn';
import { analyze, type Scope, type ScopeManager, type Variable } from 'eslint-scope';
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import { lineAndColumn } from '../workspace/json.js';
import type { PlacedReads } from './placed-reads.js';
import { bufferView } from '../outputs/buffer-view.js';
import { inlineMappedPlace, type MappedPlace } from './inline-source-map.js';
import { loadTsconfig, tsconfigPlaces, type LoadedTsconfig } from '../workspace/tsconfig.js';
import { dirOf, joinRelative } from '../workspace/paths.js';
import { effectsShimWarningText } from '../workspace/shim-reads.js';

/** The globals of Node that no browser defines, and what to write instead. */
export const NODE_GLOBALS = {
  process: 'only process.env.NODE_ENV is replaced at build time (it follows the variant\'s env): read another value as import.meta.env.<NAME> and define it in "core.define" of the package\'s package.json ({"import.meta.env.API_URL": "\\"https://...\\""}), or define the name read itself there ({"process.env.API_URL": "\\"https://...\\""})',
  global: "global is Node's name of the global object: write globalThis",
  Buffer: 'use Uint8Array (TextEncoder and TextDecoder for text, atob and btoa for base64), or import { Buffer } from a package that provides one for browsers',
  __dirname: "__dirname is CommonJS's: no ES module has it; use new URL('.', import.meta.url)",
  __filename: "__filename is CommonJS's: no ES module has it; use import.meta.url",
  module: "module is CommonJS's: no ES module has it; write export default ... or export const ...",
  exports: "exports is CommonJS's: no ES module has it; write export const ...",
  setImmediate: 'use setTimeout(callback, 0), or queueMicrotask(callback) to run it before any other task',
  clearImmediate: 'use clearTimeout for a callback given to setTimeout',
} as const;

type NodeGlobal = keyof typeof NODE_GLOBALS;

const JSX_SOURCE = /\.[jt]sx$/;

/**
 * How esbuild compiles one source's JSX, as it decides (README "Bundling real code"): a pragma
 * comment of the file (`@jsxRuntime`, `@jsx`, `@jsxFrag`), else the nearest `tsconfig.json` (or
 * `jsconfig.json`) with its `extends` chain. Classic JSX calls its factory and fragment by name
 * (`React.createElement` and `React.Fragment` when nothing names them), so their first names must
 * be bound; automatic JSX imports its runtime, an import judged like any other. esbuild never
 * leaves JSX in its output (no browser parses it): `"jsx": "preserve"` or `"react-native"`
 * compiles as classic.
 */
interface JsxCompilation {
  source: string;
  /** The first names of the factory and the fragment: those the code reads. */
  names: string[];
  /** What chose them: the file's pragma, or the config file's compilerOptions; null for esbuild's default. */
  chosenBy: { pragma: true } | { config: string; jsx: string | null } | null;
  factory: string;
  fragment: string;
}

const DEFAULT_FACTORY = 'React.createElement';
const DEFAULT_FRAGMENT = 'React.Fragment';
const AUTOMATIC = new Set(['react-jsx', 'react-jsxdev']);
const PRAGMA = /@(jsxRuntime|jsxFrag|jsx)\s+([\w$.]+)/g;

/** The classic JSX compilations of `sources` (automatic ones import their runtime: nothing to judge here). */
function classicJsx(reads: PlacedReads, sources: readonly string[]): JsxCompilation[] {
  const configs = new Map<string, LoadedTsconfig | null>();
  const found: JsxCompilation[] = [];
  for (const source of sources) {
    const pragmas = new Map<string, string>();
    for (const [, key, value] of (reads.text(source) ?? '').matchAll(PRAGMA)) if (!pragmas.has(key!)) pragmas.set(key!, value!);
    const config = nearestConfig(reads, dirOf(source), configs);
    const options = config?.compilerOptions ?? {};
    const jsx = typeof options.jsx === 'string' ? options.jsx : null;
    const runtime = pragmas.get('jsxRuntime');
    if (runtime === 'automatic' || (runtime !== 'classic' && jsx !== null && AUTOMATIC.has(jsx))) continue;
    const configured = (option: string) => (typeof options[option] === 'string' && options[option] !== '' ? (options[option] as string) : undefined);
    const factory = pragmas.get('jsx') ?? configured('jsxFactory') ?? DEFAULT_FACTORY;
    const fragment = pragmas.get('jsxFrag') ?? configured('jsxFragmentFactory') ?? DEFAULT_FRAGMENT;
    const chosenBy = pragmas.has('jsx') || pragmas.has('jsxFrag') ? { pragma: true as const } : config && (jsx !== null || configured('jsxFactory') || configured('jsxFragmentFactory')) ? { config: config.file, jsx } : null;
    found.push({ source, names: [...new Set([factory, fragment].map((name) => name.split('.')[0]!))], chosenBy, factory, fragment });
  }
  return found;
}

/** The nearest config esbuild applies to a directory's files: a `tsconfig.json`, else a `jsconfig.json` beside it; read once per directory. */
export function nearestConfig(reads: PlacedReads, dir: string, configs: Map<string, LoadedTsconfig | null>): LoadedTsconfig | null {
  if (configs.has(dir)) return configs.get(dir)!;
  const reader = { read: (file: string) => reads.configText(file), resolvePackage: () => null };
  let config: LoadedTsconfig | null = null;
  for (const place of tsconfigPlaces(dir)) {
    const file = [place, joinRelative(dirOf(place), 'jsconfig.json')].find((candidate) => reads.configText(candidate) !== null);
    if (file !== undefined) {
      config = loadTsconfig(file, reader);
      break;
    }
  }
  configs.set(dir, config);
  return config;
}

/** Each name's free references: whether one is evaluated when the module is imported, and where the code writes it, for `process`, which member. */
export interface FreeUse {
  onImport: boolean;
  inFunction: boolean;
  member?: string;
  /** The code tests the name somewhere (`typeof process`, `if (globalThis.process)`, `'process' in globalThis`): its reads in a function or a branch are guarded. */
  guarded?: true;
  /** The code writes the name as a member of the global object (a shim: `globalThis.process = ...`): its reads are at most a warning. */
  defined?: true;
  /**
   * The modules the code imports for their effects only (`import '@p/polyfills/process'`), in order:
   * run before any code of this one, one may write the name on the global object, in code no build
   * of this module reads. A read the import makes is then at most a warning, unless each is known to
   * run no code (a stylesheet module of the workspace: `freeGlobalDiagnostics`).
   */
  importedForEffects?: readonly string[];
  /** Where the code writes the read told (the first the import makes, else the first): an offset of the code parsed. */
  at?: number;
}

/**
 * The free references to `names` in `code`, by name; null when the code does not parse (another
 * bundler's output, syntax acorn does not know yet): then nothing is judged, as the link names
 * judge nothing they cannot read.
 */
export function freeReferences(code: string, names: readonly string[]): Map<string, FreeUse> | null {
  const found = new Map<string, FreeUse>();
  if (names.length === 0 || !new RegExp(`\\b(?:${names.join('|')})\\b`).test(code)) return found;
  const analysed = analysedModule(code);
  if (analysed === null) return null;
  const { globalScope, shape } = analysed;
  if (shape.guardDeclarators.size > 0) guardsHeldInVariables(shape);
  const wanted = new Set(names);
  for (const reference of globalScope?.through ?? []) {
    const { name } = reference.identifier;
    // `typeof process` reads nothing that throws: it is the guard, not a read.
    if (!wanted.has(name) || shape.typeofOperands.has(reference.identifier as unknown as SyntaxNode)) continue;
    const use: FreeUse = found.get(name) ?? {
      onImport: false,
      inFunction: false,
      ...(shape.tested.has(name) ? { guarded: true as const } : {}),
      ...(shape.definedOnGlobal.has(name) ? { defined: true as const } : {}),
    };
    const [start, end] = (reference.identifier as { range?: [number, number] }).range ?? [-1, undefined];
    // A read in a branch the import may not take (`typeof window < 'u' ? window : global`, a
    // `try`) may never run: told as one in a function is, never as a page that surely throws.
    const onImport = runsOnImport(reference.from, start, shape);
    // The read told, named and placed, is the first the import makes, not a guarded one before it.
    if (use.at === undefined || (onImport && !use.onImport)) {
      const member = name === 'process' && end !== undefined ? /^\s*\.\s*env\s*\.\s*([\w$]+)/.exec(code.slice(end, end + 200))?.[1] : undefined;
      if (member !== undefined) use.member = member;
      else delete use.member;
      use.at = start;
    }
    if (onImport) use.onImport = true;
    else use.inFunction = true;
    found.set(name, use);
  }
  // A shim the import never runs (written only in functions nothing calls then) defines nothing for
  // the reads the import makes: `export function install() { globalThis.process = ... }` before
  // `process.env.X` at the top level threw on a page. Its importer may call it before its own reads.
  for (const [name, use] of found) if (use.onImport && use.defined && !shape.definedOnGlobal.get(name)!.some((write) => mayRunOnImport(write, shape))) delete use.defined;
  if (shape.importedForEffects.length > 0) for (const use of found.values()) use.importedForEffects = shape.importedForEffects;
  return found;
}

// The last code analysed: the judgement of names nothing binds (unbound-names.ts) reads the same
// build's code after this one, and a parse of a large bundle is costly.
let lastAnalysed: { code: string; analysed: ReturnType<typeof analysedModule> } | null = null;

/** A module's code parsed with its scopes and the shape that decides what runs on import; null when it does not parse. */
export function analysedModule(code: string): { globalScope: Scope | null; shape: TreeShape } | null {
  if (lastAnalysed?.code === code) return lastAnalysed.analysed;
  const analysed = parsedModule(code);
  lastAnalysed = { code, analysed };
  return analysed;
}

function parsedModule(code: string): { globalScope: Scope | null; shape: TreeShape } | null {
  try {
    const tree = parse(code, { ecmaVersion: 'latest', sourceType: 'module', ranges: true });
    const scopes = analyze(tree as Parameters<typeof analyze>[0], { ecmaVersion: 2022, sourceType: 'module' });
    return { globalScope: scopes.globalScope, shape: treeShape(tree as unknown as SyntaxNode, scopes) };
  } catch {
    return null;
  }
}

/** The module `code` analysed, when its text names one of `names` at all ('absent' else: nothing to parse); null when it does not parse. */
function analysedNaming(code: string, names: readonly string[]): ReturnType<typeof analysedModule> | 'absent' {
  if (names.length === 0 || !new RegExp(`\\b(?:${names.join('|')})\\b`).test(code)) return 'absent';
  return analysedModule(code);
}

/** A free reference to a name: where the identifier starts, and whether it surely runs when the module starts. */
export interface FreeReferencePlace {
  name: string;
  start: number;
  /** Evaluated when the module is imported (or a module worker starts) and in no branch that may not be taken (an `if`, a `try`, a function not called then). */
  surelyRuns: boolean;
}

/**
 * Each free reference to `names` in the module `code` (nothing binds it: the global's name, not
 * a parameter, an import or a local class), by place; null when the code does not parse as a
 * module. What runs on import is judged as for Node's globals (README "Bundling real code"): the
 * worker judgements ask it of the constructors a module calls and of a module worker's
 * `importScripts`.
 */
export function freeReferencePlaces(code: string, names: readonly string[]): FreeReferencePlace[] | null {
  const analysed = analysedNaming(code, names);
  if (analysed === null || analysed === 'absent') return analysed === null ? null : [];
  const { globalScope, shape } = analysed;
  const wanted = new Set(names);
  const places: FreeReferencePlace[] = [];
  for (const reference of globalScope?.through ?? []) {
    const { name } = reference.identifier;
    const start = (reference.identifier as { range?: [number, number] }).range?.[0];
    if (!wanted.has(name) || start === undefined) continue;
    places.push({ name, start, surelyRuns: runsOnImport(reference.from, start, shape) });
  }
  return places.sort((a, b) => a.start - b.start);
}

/** An expression naming a global's value: where it starts and ends, and the global's name. */
export interface GlobalValuePlace {
  name: string;
  start: number;
  end: number;
}

/**
 * Each expression of the module `code` whose value is the global `names` (README "Bundling real
 * code", workers): a free reference (`Worker`), a member of the global object where nothing binds
 * that object's name (`window.Worker`, `globalThis['Worker']`, `self.Worker`), and a reference to a
 * name declared once to hold one of those and never written again (`const W = Worker; new W()`,
 * `let W = Worker`, or taken from the global object by destructuring: `const { Worker: W } =
 * globalThis`, `const { Worker } = window`). Null when the code does not parse as a module.
 */
export function globalValuePlaces(code: string, names: readonly string[]): GlobalValuePlace[] | null {
  const analysed = analysedNaming(code, names);
  if (analysed === null || analysed === 'absent') return analysed === null ? null : [];
  const { globalScope, shape } = analysed;
  const wanted = new Set(names);
  const found = new Map<SyntaxNode, string>();
  const pending: [SyntaxNode, string][] = [];
  // A name holding one holds it wherever it is read, while nothing writes it again.
  const heldBy = (variable: Variable | null, name: string) => {
    if (variable === null || !keepsItsValue(variable)) return;
    for (const reference of variable.references) {
      const identifier = reference.identifier as unknown as SyntaxNode;
      if (reference.init || !reference.isRead() || found.has(identifier)) continue;
      found.set(identifier, name);
      pending.push([identifier, name]);
    }
  };
  for (const reference of globalScope?.through ?? []) {
    const identifier = reference.identifier as unknown as SyntaxNode;
    const name = identifier.name as string;
    if (wanted.has(name)) {
      found.set(identifier, name);
      pending.push([identifier, name]);
      continue;
    }
    const parent = shape.parents.get(identifier);
    if (!GLOBAL_OBJECTS.has(name) || parent === undefined) continue;
    const key = parent.type === 'MemberExpression' && parent.object === identifier ? memberKey(parent) : null;
    if (key !== null && wanted.has(key)) {
      found.set(parent, key);
      pending.push([parent, key]);
    }
    for (const taken of destructuredMembers(parent, identifier, shape)) if (wanted.has(taken.key)) heldBy(taken.variable, taken.key);
  }
  // One holding that name's value, too.
  while (pending.length > 0) {
    const [node, name] = pending.pop()!;
    const declarator = shape.parents.get(node);
    if (declarator?.type === 'VariableDeclarator' && declarator.init === node) heldBy(declaredVariable(declarator, shape), name);
  }
  return [...found].map(([node, name]) => ({ name, start: node.range![0], end: node.range![1] })).sort((a, b) => a.start - b.start);
}

export interface SyntaxNode {
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

/**
 * A condition's value when it is written as a constant: esbuild folds `process.env.NODE_ENV ===
 * 'production'` to `false` once `define` gives the mode (README "Bundling real code"), so the code
 * judged holds `false ? a : b` and `if (true) ...`; null when it is not a constant.
 */
function constantValue(node: unknown): boolean | null {
  if (!isNode(node)) return null;
  if (node.type === 'Literal') return node.regex === undefined ? Boolean(node.value) : true;
  if (node.type === 'UnaryExpression' && node.operator === '!') {
    const value = constantValue(node.argument);
    return value === null ? null : !value;
  }
  if (node.type === 'UnaryExpression' && node.operator === 'void' && isNode(node.argument) && node.argument.type === 'Literal') return false;
  return null;
}

/** Whether the conditional `member` of `node` surely runs where `node` does: the branch its constant test takes. */
function surelyTaken(node: SyntaxNode, member: string): boolean {
  if (node.type === 'IfStatement' || node.type === 'ConditionalExpression') {
    const value = constantValue(node.test);
    return value !== null && value === (member === 'consequent');
  }
  if (node.type === 'LogicalExpression' && member === 'right') {
    const left = node.left;
    if (node.operator === '??') return isNode(left) && ((left.type === 'Literal' && left.value === null && left.regex === undefined) || (left.type === 'UnaryExpression' && left.operator === 'void'));
    const value = constantValue(left);
    return value !== null && value === (node.operator === '&&');
  }
  return false;
}

export interface TreeShape {
  /** The ranges of the code that runs only on a condition. */
  branches: Array<[number, number]>;
  /** The ranges of the code that never runs: the statements after one that always leaves its block (function declarations apart, hoisted). */
  neverRun: Array<[number, number]>;
  /**
   * The functions and class field initializers that run where they are written, as the code
   * around them does: a function or arrow called at once (`(() => ...)()`, `!function () {...}()`,
   * `(function () {...}).call(this)`, `new function () {...}`). Not an async function or a
   * generator called at once: a generator's body waits for `next()`, and an async function's throw
   * rejects its promise, the import goes on. With the arguments each is called with: a parameter's
   * default runs only where its argument is missing or `undefined`.
   */
  runWhereWritten: Map<SyntaxNode, Arguments>;
  /** The initializers of static fields: run when the class is defined (an instance field's, when it is constructed). */
  staticInitializers: Set<SyntaxNode>;
  /** The identifiers `typeof` is applied to. */
  typeofOperands: Set<SyntaxNode>;
  /** The names the code tests: with `typeof` anywhere; as a member of the global object or `in` it, in a condition. */
  tested: Set<string>;
  /** Each node's parent: what a function is held by, and what is done with each reference to it. */
  parents: Map<SyntaxNode, SyntaxNode>;
  /** The identifiers read in a condition (`if (isNode)`, `isNode && ...`): a guard held in a variable, when that holds a test. */
  conditionNames: Set<SyntaxNode>;
  /** The declarators (`var isNode = !!globalThis.process`) whose initializer tests names as a condition does, with those names. */
  guardDeclarators: Map<SyntaxNode, Set<string>>;
  /** The property names the code writes through a member (`x.read = ...`, `x.read++`, `delete x.read`): a method of that name may be replaced. */
  writtenKeys: Set<string>;
  /**
   * The names the code writes as members of the global object, wherever (README "Bundling real
   * code", shims): `window.process = ...`, `globalThis.process ??= ...`, `Object.assign(globalThis,
   * { Buffer })`, `Object.defineProperty(globalThis, 'process', ...)`, `Object.defineProperties`;
   * with the nodes that write each.
   */
  definedOnGlobal: Map<string, SyntaxNode[]>;
  /** The modules the code imports for their effects only (`import 'x'`): each kept external, run before the code. */
  importedForEffects: string[];
  /** The classes the code writes, declared or as expressions. */
  classes: SyntaxNode[];
  /** Whether the code writes a member of `this` by a computed key (`this[k] = ...`): any method of an object may be replaced. */
  writesThisByKey: boolean;
  scopes: ScopeManager;
  /** The identifiers no scope binds (`Reflect` in `Reflect.apply(read, ...)` is the global one only when free). */
  freeIdentifiers: Set<SyntaxNode>;
  /** Whether each named function is called on import, as found; by parameter, whether a call on import leaves it `undefined` (its default runs). */
  calledOnImport: Map<SyntaxNode, boolean>;
  defaultTakenOnImport: Map<SyntaxNode, Map<number, boolean>>;
  /** By class, as found: its chain of classes to the root (`classChain`), and whether its own `new` runs on import. */
  classChains: Map<SyntaxNode, SyntaxNode[] | null>;
  constructedOnImport: Map<SyntaxNode, boolean>;
  /** The class each name read as a class's `extends` holds, found once for all classes. */
  extendedClasses?: Map<SyntaxNode, SyntaxNode>;
}

/** The shape of acorn's tree that decides what runs on import, found by one walk (every member holding nodes). */
function treeShape(tree: SyntaxNode, scopes: ScopeManager): TreeShape {
  const branches: Array<[number, number]> = [];
  const neverRun: Array<[number, number]> = [];
  const runWhereWritten = new Map<SyntaxNode, Arguments>();
  const staticInitializers = new Set<SyntaxNode>();
  const typeofOperands = new Set<SyntaxNode>();
  const tested = new Set<string>();
  const parents = new Map<SyntaxNode, SyntaxNode>();
  const conditionNames = new Set<SyntaxNode>();
  const guardDeclarators = new Map<SyntaxNode, Set<string>>();
  const writtenKeys = new Set<string>();
  const definedOnGlobal = new Map<string, SyntaxNode[]>();
  const importedForEffects: string[] = [];
  const classes: SyntaxNode[] = [];
  let writesThisByKey = false;
  const add = (value: unknown) => {
    for (const node of Array.isArray(value) ? value : [value]) if (isNode(node) && node.range) branches.push(node.range);
  };
  const visit = (node: SyntaxNode) => {
    const members = CONDITIONAL_MEMBERS[node.type];
    if (members && (node.type !== 'AssignmentExpression' || LOGICAL_ASSIGNMENT.has(node.operator as string))) for (const member of members) if (!surelyTaken(node, member)) add(node[member]);
    if (node.type === 'BlockStatement' || node.type === 'Program' || node.type === 'StaticBlock') afterEarlyExits(node.body, branches, neverRun);
    const atOnce = calledAtOnce(node);
    if (atOnce) runWhereWritten.set(atOnce.callee, atOnce.args);
    const callback = elementCallback(node);
    if (callback) runWhereWritten.set(callback, UNKNOWN_ARGUMENTS);
    if (node.type === 'PropertyDefinition' && node.static === true && isNode(node.value)) staticInitializers.add(node.value);
    if (node.type === 'ClassDeclaration' || node.type === 'ClassExpression') classes.push(node);
    if (node.type === 'UnaryExpression' && node.operator === 'typeof' && isNode(node.argument) && node.argument.type === 'Identifier') {
      typeofOperands.add(node.argument);
      tested.add(node.argument.name as string);
    }
    const condition = CONDITIONS[node.type];
    if (condition) {
      testedInCondition(node[condition], tested);
      conditionOperands(node[condition], conditionNames);
    }
    const [id, init] = [node.id as SyntaxNode | undefined, node.init as SyntaxNode | undefined];
    if (node.type === 'VariableDeclarator' && id?.type === 'Identifier' && isNode(init) && !FUNCTIONS.has(init.type)) {
      const names = new Set<string>();
      testedInCondition(init, names);
      if (names.size > 0) guardDeclarators.set(node, names);
    }
    const imported = node.source as SyntaxNode | undefined;
    if (node.type === 'ImportDeclaration' && (node.specifiers as SyntaxNode[]).length === 0 && typeof imported?.value === 'string') importedForEffects.push(imported.value);
    if (node.type === 'CallExpression' && node.optional === true) add(node.arguments); // `f?.(x)`: no argument is evaluated when f is nullish
    definedOnGlobalObject(node, (name) => definedOnGlobal.set(name, [...(definedOnGlobal.get(name) ?? []), node]));
    const written = writtenMember(node);
    if (written) {
      const key = memberKey(written);
      if (key !== null) writtenKeys.add(key);
      else if ((written.object as SyntaxNode).type === 'ThisExpression') writesThisByKey = true;
    }
    for (const child of childNodes(node)) {
      parents.set(child, node);
      visit(child);
    }
  };
  visit(tree);
  // A write after a statement that always leaves its block (`return; globalThis.process = ...`) never runs: it defines nothing.
  for (const [name, writes] of definedOnGlobal) {
    const run = writes.filter((write) => !neverRuns(write, { neverRun }));
    if (run.length > 0) definedOnGlobal.set(name, run);
    else definedOnGlobal.delete(name);
  }
  const freeIdentifiers = new Set((scopes.globalScope?.through ?? []).map((reference) => reference.identifier as unknown as SyntaxNode));
  return { branches, neverRun, runWhereWritten, staticInitializers, typeofOperands, tested, parents, conditionNames, guardDeclarators, writtenKeys, definedOnGlobal, importedForEffects, classes, writesThisByKey, scopes, freeIdentifiers, calledOnImport: new Map(), defaultTakenOnImport: new Map(), classChains: new Map(), constructedOnImport: new Map() };
}

/** Whether a node names the global object (`globalThis`, `window`, `self`). */
export function isGlobalObject(node: unknown): boolean {
  return isNode(node) && node.type === 'Identifier' && GLOBAL_OBJECTS.has(node.name as string);
}

/** The names a node writes as members of the global object, each given to `define`: an assignment of any operator, `Object.assign`, `Object.defineProperty(ies)`. */
function definedOnGlobalObject(node: SyntaxNode, define: (name: string) => void): void {
  const left = node.left as SyntaxNode | undefined;
  if (node.type === 'AssignmentExpression' && left?.type === 'MemberExpression' && isGlobalObject(left.object)) {
    const key = memberKey(left);
    if (key !== null) define(key);
    return;
  }
  const callee = node.callee as SyntaxNode | undefined;
  if (node.type !== 'CallExpression' || callee?.type !== 'MemberExpression' || !isNode(callee.object) || callee.object.type !== 'Identifier' || callee.object.name !== 'Object') return;
  const method = memberKey(callee);
  const [target, ...rest] = node.arguments as SyntaxNode[];
  if (!isGlobalObject(target)) return;
  const keysOf = (object: SyntaxNode | undefined) => {
    if (object?.type !== 'ObjectExpression') return;
    for (const property of object.properties as SyntaxNode[]) {
      const key = property.type === 'Property' ? memberKey(property) : null;
      if (key !== null) define(key);
    }
  };
  if (method === 'assign') for (const source of rest) keysOf(source);
  else if (method === 'defineProperties') keysOf(rest[0]);
  else if (method === 'defineProperty' && rest[0]?.type === 'Literal' && typeof rest[0].value === 'string') define(rest[0].value);
}

/** The member an assignment, an update or a `delete` writes (`x.read = ...`, `x.n++`, `delete x.read`), if any. */
function writtenMember(node: SyntaxNode): SyntaxNode | null {
  const target = node.type === 'AssignmentExpression' ? node.left : node.type === 'UpdateExpression' || (node.type === 'UnaryExpression' && node.operator === 'delete') ? node.argument : null;
  return isNode(target) && target.type === 'MemberExpression' ? target : null;
}

/** The name of a member (`x.read`, `x['read']`) or of a property (`read: ...`, `read() {}`); null for a key computed otherwise. */
export function memberKey(node: SyntaxNode): string | null {
  const key = (node.type === 'MemberExpression' ? node.property : node.key) as SyntaxNode | undefined;
  if (!key) return null;
  if (!node.computed && key.type === 'Identifier') return key.name as string;
  return key.type === 'Literal' && typeof key.value === 'string' ? key.value : null;
}

/** Where each node kind holds a condition. */
const CONDITIONS: Readonly<Record<string, string>> = { IfStatement: 'test', ConditionalExpression: 'test', LogicalExpression: 'left', WhileStatement: 'test', ForStatement: 'test' };

/** The names of the global object a page has under every name. */
const GLOBAL_OBJECTS = new Set(['globalThis', 'window', 'self']);

/**
 * The names a condition tests as members of the global object (`globalThis.process`,
 * `window.Buffer !== undefined`, `typeof self.process`) or with `in` (`'process' in globalThis`):
 * a walk of the condition, not of the functions in it.
 */
function testedInCondition(node: unknown, tested: Set<string>): void {
  if (!isNode(node) || FUNCTIONS.has(node.type)) return;
  const object = node.object as SyntaxNode | undefined;
  const property = node.property as SyntaxNode | undefined;
  if (node.type === 'MemberExpression' && object?.type === 'Identifier' && GLOBAL_OBJECTS.has(object.name as string)) {
    const name = node.computed ? (property?.type === 'Literal' ? property.value : undefined) : property?.name;
    if (typeof name === 'string') tested.add(name);
  }
  const left = node.left as SyntaxNode | undefined;
  if (node.type === 'BinaryExpression' && node.operator === 'in' && left?.type === 'Literal' && typeof left.value === 'string') tested.add(left.value);
  for (const child of childNodes(node)) testedInCondition(child, tested);
}

/**
 * The names a condition tests as its truth, which may hold a test (`if (isNode)`, `!isNode ||`,
 * `isNode && ready`): the condition itself, under `!`, or an operand of `&&`, `||`, `??`; not a
 * name whose member or call is tested (`if (env.DEBUG)`).
 */
function conditionOperands(node: unknown, names: Set<SyntaxNode>): void {
  if (!isNode(node)) return;
  if (node.type === 'Identifier') names.add(node);
  else if (node.type === 'UnaryExpression' && node.operator === '!') conditionOperands(node.argument, names);
  else if (node.type === 'LogicalExpression') {
    conditionOperands(node.left, names);
    conditionOperands(node.right, names);
  }
}

const FUNCTIONS = new Set(['FunctionExpression', 'ArrowFunctionExpression', 'FunctionDeclaration', 'ClassExpression', 'ClassDeclaration']);

/** The function a call or `new` runs at once, where it is written: its callee, or the object of its `.call` or `.apply`; with the arguments it gets. */
function calledAtOnce(node: SyntaxNode): { callee: SyntaxNode; args: Arguments } | null {
  if (node.type !== 'CallExpression' && node.type !== 'NewExpression') return null;
  let callee = node.callee as SyntaxNode;
  let args = argumentsOf(node.arguments as SyntaxNode[]);
  const property = callee.property as SyntaxNode | undefined;
  if (node.type === 'CallExpression' && callee.type === 'MemberExpression' && !callee.computed && (property?.name === 'call' || property?.name === 'apply')) {
    args = property.name === 'call' ? argumentsOf((node.arguments as SyntaxNode[]).slice(1)) : listedArguments((node.arguments as SyntaxNode[])[1]);
    callee = callee.object as SyntaxNode;
  }
  const runsBody = (callee.type === 'FunctionExpression' || callee.type === 'ArrowFunctionExpression') && callee.async !== true && callee.generator !== true;
  return runsBody ? { callee, args } : null;
}

/**
 * What a call passes at each position, as far as the code says: a value that is surely not
 * `undefined` (a literal, `null` too, an object, array, function or template), surely `undefined`
 * (`undefined`, `void 0`, an argument missing), or unknown (a name, a call, anything from a spread on).
 */
type Passed = 'value' | 'undefined' | 'unknown';

interface Arguments {
  at: Passed[];
  /** What the positions past `at` get: `undefined` when the list was all written, unknown after a spread. */
  rest: Passed;
}

const UNKNOWN_ARGUMENTS: Arguments = { at: [], rest: 'unknown' };

/** The node kinds whose value is never `undefined`. */
const DEFINED_VALUES = new Set(['Literal', 'TemplateLiteral', 'ObjectExpression', 'ArrayExpression', 'FunctionExpression', 'ArrowFunctionExpression', 'ClassExpression', 'NewExpression']);

function argumentsOf(list: ReadonlyArray<SyntaxNode | null>): Arguments {
  const at: Passed[] = [];
  for (const argument of list) {
    if (argument?.type === 'SpreadElement') return { at, rest: 'unknown' };
    at.push(passed(argument));
  }
  return { at, rest: 'undefined' };
}

/** The arguments `.apply` or `Reflect.apply` passes from a list: an array literal's elements (a hole is `undefined`), none when absent, else unknown. */
function listedArguments(list: SyntaxNode | undefined): Arguments {
  if (list === undefined) return { at: [], rest: 'undefined' };
  return list.type === 'ArrayExpression' ? argumentsOf(list.elements as Array<SyntaxNode | null>) : UNKNOWN_ARGUMENTS;
}

function passed(argument: SyntaxNode | null): Passed {
  if (argument === null || (argument.type === 'Identifier' && argument.name === 'undefined') || (argument.type === 'UnaryExpression' && argument.operator === 'void')) return 'undefined';
  return DEFINED_VALUES.has(argument.type) ? 'value' : 'unknown';
}

const passedAt = (args: Arguments, position: number): Passed => args.at[position] ?? args.rest;

/** `bound` (`read.bind(null, 1)`) followed by the arguments the bound function is called with. */
function followedBy(bound: Arguments, args: Arguments): Arguments {
  return bound.rest === 'unknown' ? bound : { at: [...bound.at, ...args.at], rest: args.rest };
}

/** The methods of an array that call their callback at once for each element, the element first. */
const EVERY_ELEMENT = new Set(['forEach', 'map', 'filter', 'flatMap']);

/**
 * The callback an array literal's `forEach`, `map`, `filter` or `flatMap` calls at once, once for
 * each element, the element first (`[read].forEach((f) => f())`): run where it is written, as a
 * function called at once is, when the array has an element that is no spread. Not an async
 * callback or a generator.
 */
function elementCallback(node: SyntaxNode): SyntaxNode | null {
  const callee = node.callee as SyntaxNode | undefined;
  const array = callee?.object as SyntaxNode | undefined;
  if (node.type !== 'CallExpression' || callee?.type !== 'MemberExpression' || callee.computed || !EVERY_ELEMENT.has((callee.property as SyntaxNode).name as string)) return null;
  if (array?.type !== 'ArrayExpression' || !(array.elements as Array<SyntaxNode | null>).some((element) => element !== null && element.type !== 'SpreadElement')) return null;
  const callback = (node.arguments as SyntaxNode[])[0];
  return isNode(callback) && (callback.type === 'FunctionExpression' || callback.type === 'ArrowFunctionExpression') && callback.async !== true && callback.generator !== true ? callback : null;
}

/**
 * The statements after one that may leave the block (`if (typeof process > 'u') return;`) run
 * only on a condition: added to `branches`. Not after an `if` that may throw (`if
 * (!globalThis.fetch) throw ...`): where it throws, the import fails anyway, so what follows runs
 * on every import that does not fail. The statements after one that always leaves it (`return;`,
 * `break a;`, `continue`, `throw`, a block ending with one) never run: added too, as a branch
 * never taken (README "Bundling real code": esbuild's minifier drops them, so the production
 * build reads nothing there), and to `neverRun`: a shim written there defines nothing. A function
 * declaration after either is hoisted: called from before, it runs, so it is no branch.
 */
function afterEarlyExits(body: unknown, branches: Array<[number, number]>, neverRun: Array<[number, number]>): void {
  if (!Array.isArray(body)) return;
  const statements = body.filter(isNode);
  const exit = statements.findIndex((statement) => leaves(statement, true) || (statement.type === 'IfStatement' && (leaves(statement.consequent) || leaves(statement.alternate))));
  const always = statements.findIndex((statement) => leaves(statement, true));
  for (const [index, after] of statements.entries()) {
    if (!after.range || after.type === 'FunctionDeclaration') continue;
    if (exit >= 0 && index > exit) branches.push(after.range);
    if (always >= 0 && index > always) neverRun.push(after.range);
  }
}

const EXITS = new Set(['ReturnStatement', 'BreakStatement', 'ContinueStatement']);

/** Whether a statement ends by leaving its block: a `return`, `break` or `continue` (or, `orThrowing`, a `throw`), or a block ending with one. */
function leaves(statement: unknown, orThrowing = false): boolean {
  if (!isNode(statement)) return false;
  if (statement.type === 'BlockStatement') return Array.isArray(statement.body) && leaves(statement.body[statement.body.length - 1], orThrowing);
  return EXITS.has(statement.type) || (orThrowing && statement.type === 'ThrowStatement');
}

export const isNode = (value: unknown): value is SyntaxNode => typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';

/** The nodes a node holds, in the order of its members: the one walk every judgement here makes of acorn's tree. */
export function childNodes(node: SyntaxNode): SyntaxNode[] {
  const children: SyntaxNode[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'range') continue;
    for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) children.push(child);
  }
  return children;
}

/**
 * A reference outside every function body runs when the module is imported; one in a function
 * (a method, an arrow, an instance field's initializer, run when the class is constructed) only
 * when that is called, unless it runs where it is written: a function called at once, a static
 * field's initializer. A class's static block runs where the class is defined.
 */
function isEvaluatedOnImport(scope: Scope | null, start: number, shape: TreeShape): boolean {
  let at = start;
  for (let current = scope; current !== null; current = current.upper) {
    const block = current.block as unknown as SyntaxNode;
    if (current.type === 'function' && !functionRunsCodeAt(current, at, shape)) return false;
    if (current.type === 'class-field-initializer' && !shape.staticInitializers.has(block) && !calledOnImport(current, shape)) return false;
    // The scope around this one runs it where it is written: from there, what counts is that place.
    at = block.range?.[0] ?? at;
  }
  return true;
}

/**
 * Whether the code at `at` of a function runs on import: in its body, when the function is called
 * on import; in the default of a parameter (`function f(x = process.env.X)`), only when a call on
 * import surely leaves that argument `undefined` (`f()`, `f(undefined)`: `f(1)` never evaluates
 * it, `f(value)` may or may not); elsewhere in a parameter (a default inside a destructured one),
 * not followed.
 */
function functionRunsCodeAt(scope: Scope, at: number, shape: TreeShape): boolean {
  const block = scope.block as unknown as SyntaxNode;
  const atOnce = shape.runWhereWritten.get(block);
  const position = (block.params as SyntaxNode[]).findIndex(({ range }) => range !== undefined && at >= range[0] && at < range[1]);
  if (position < 0) return atOnce !== undefined || calledOnImport(scope, shape);
  const parameter = (block.params as SyntaxNode[])[position]!;
  const fallback = parameter.type === 'AssignmentPattern' ? (parameter.right as SyntaxNode).range : undefined;
  if (fallback === undefined || at < fallback[0] || at >= fallback[1]) return false;
  if (atOnce !== undefined) return passedAt(atOnce, position) === 'undefined';
  return defaultTakenOnImport(scope, position, shape);
}

/**
 * Whether code may run when the module is imported: not when a function holding it is surely never
 * called then. That is a function nothing refers to but an export (`export function install()
 * {...}`, `export default () => {...}`, `function install() {...} export { install }`): an importer
 * runs after the module; or but code that never runs (`throw e; install();`). Any other reference
 * may call it (`if (ok) install()`, `setup(install)`).
 */
export function mayRunOnImport(node: SyntaxNode, shape: TreeShape): boolean {
  for (let current = shape.parents.get(node); current !== undefined; current = shape.parents.get(current)) {
    if ((current.type === 'FunctionDeclaration' || current.type === 'FunctionExpression' || current.type === 'ArrowFunctionExpression') && onlyExported(current, shape)) return false;
  }
  return true;
}

/** Whether a function is only declared or exported: no name refers to it but an export's. */
function onlyExported(fn: SyntaxNode, shape: TreeShape): boolean {
  if (shape.runWhereWritten.has(fn)) return false;
  const parent = shape.parents.get(fn);
  if (parent?.type === 'ExportDefaultDeclaration' && !fn.id) return true;
  let variable: Variable | null | undefined = null;
  if (fn.type === 'FunctionDeclaration') {
    const name = (fn.id as SyntaxNode | null)?.name;
    variable = shape.scopes.getDeclaredVariables(fn as never).find((declared) => declared.name === name && declared.defs[0]?.type === 'FunctionName');
  } else if (parent?.type === 'VariableDeclarator' && parent.init === fn) {
    variable = declaredVariable(parent, shape);
  }
  if (!variable || !keepsItsValue(variable)) return false;
  return variable.references.every((reference) => {
    const identifier = reference.identifier as unknown as SyntaxNode;
    return reference.init || shape.parents.get(identifier)?.type === 'ExportSpecifier' || neverRuns(identifier, shape);
  });
}

/** Whether a node is in code that never runs (after a statement that always leaves its block). */
function neverRuns(node: SyntaxNode, shape: Pick<TreeShape, 'neverRun'>): boolean {
  const start = node.range?.[0] ?? -1;
  return shape.neverRun.some(([from, to]) => start >= from && start < to);
}

/** Whether code at `start` in `scope` runs when the module is imported: evaluated then, and in no branch the import may not take. */
export function runsOnImport(scope: Scope | null, start: number, shape: TreeShape): boolean {
  return isEvaluatedOnImport(scope, start, shape) && !shape.branches.some(([from, to]) => start >= from && start < to);
}

/**
 * Whether a function is called where the import runs (README "Bundling real code"): its body then
 * runs on import, as Chromium runs it. Followed: a call by the name it is bound to (`function
 * read() {...}`, `var read = () => ...`, esbuild's `var o=()=>...`), by another name bound to it
 * (`const f = read; f()`), through a comma expression (`(0, read)()`, as TypeScript's and
 * esbuild's CommonJS output call), by `.call`, `.apply` or a bound copy called at once
 * (`read.call(null)`, `read.bind(null)()`), by `Reflect.apply` or `Reflect.construct`, as a
 * template's tag (`` read`a` ``), or as a member of an object held by a name (`const api = { read
 * }; api.read()`, `const o = { read() {...} }; o.read()`). A class's constructor and instance
 * field initializers run where the class is constructed, `new A()`, followed as a call is, and
 * where a subclass is (`class B extends A {}; new B()`). A class's method, as a member of its
 * class (`A.m()`) or of an instance made there (`new A().m()`, `const a = new A(); a.m()`), or
 * through `this` where the instance is constructed (`this.init()`: the constructed class's
 * method, and in an instance method called on import: `start() { this.init(); }`); a private one
 * wherever its class calls it (`this.#read()`).
 * Each only while nothing may have replaced it: a name written again (`read = other`), an object
 * handed to other code (`Object.assign(o, ...)`, `use(o)`), a member of its key written anywhere
 * (`x.read = ...`), a later property or spread of the same object. An element of an array literal
 * is called through the parameter of the callback its `forEach`, `map`, `filter` or `flatMap` runs
 * at once (`[read].forEach((f) => f())`). Not followed: a function passed as a value to any other
 * code (`use(read)`, `list.forEach(...)`), whose calls are that code's, nor an async function or a
 * generator, which throw nothing into the import.
 */
function calledOnImport(scope: Scope, shape: TreeShape): boolean {
  const block = scope.block as unknown as SyntaxNode;
  // An instance field's initializer and an arrow it holds share the node: the field is known by its definition.
  const key = scope.type === 'class-field-initializer' ? shape.parents.get(block)! : block;
  const known = shape.calledOnImport.get(key);
  if (known !== undefined) return known;
  shape.calledOnImport.set(key, false); // a function calling itself is no call on import
  const called = callSites(block, scope.type === 'class-field-initializer', shape).some(({ from, start }) => runsOnImport(from, start, shape));
  shape.calledOnImport.set(key, called);
  return called;
}

/** Whether a call on import surely leaves the argument at `position` `undefined`: the parameter's default then runs on import. */
function defaultTakenOnImport(scope: Scope, position: number, shape: TreeShape): boolean {
  const block = scope.block as unknown as SyntaxNode;
  const byPosition = shape.defaultTakenOnImport.get(block) ?? new Map<number, boolean>();
  shape.defaultTakenOnImport.set(block, byPosition);
  const known = byPosition.get(position);
  if (known !== undefined) return known;
  byPosition.set(position, false);
  const taken = callSites(block, false, shape).some(({ from, start, args }) => passedAt(args, position) === 'undefined' && runsOnImport(from, start, shape));
  byPosition.set(position, taken);
  return taken;
}

/** The calls of a function, or of an instance field's initializer, the constructions of its class (as of a constructor), that are followed. */
function callSites(block: SyntaxNode, initializer: boolean, shape: TreeShape): CallSite[] {
  // An async function's throw rejects its promise, a generator's body waits for `next()`: the import goes on.
  if (!initializer && (block.async === true || block.generator === true)) return [];
  const held = new Set<Variable>();
  const parent = shape.parents.get(block);
  const member = initializer || (parent?.type === 'MethodDefinition' && parent.kind === 'constructor') ? parent : null;
  const constructed = member ? shape.parents.get(shape.parents.get(member)!) : undefined;
  if (!initializer && parent?.type === 'MethodDefinition' && (parent.key as SyntaxNode).type === 'PrivateIdentifier') return privateCallSites(parent, shape);
  if (!initializer && parent?.type === 'MethodDefinition' && parent.kind === 'method') return [...methodCallSites(parent, shape), ...thisCallSites(parent, shape)];
  return declaredOrHeldCallSites(constructed ?? block, shape, held);
}

/**
 * The calls of an instance method through `this` where an instance is made (README "Bundling real
 * code"): `this.init()` in a constructor (or an instance field's initializer) of the class
 * constructed or of one it extends, when the method that class's instances have under that key is
 * this one: `new B()` runs B's `init`, not A's whose constructor calls it. Followed for a class
 * constructed where the import runs (by its own `new`: a subclass's is judged as that subclass),
 * whose chain of classes is known to its root, each extending a class of the module by its name,
 * none of which may put another member under the key first: a field or accessor of the key or a
 * computed member, the class or `this` handed on, a constructor returning a value, the key written
 * anywhere. Else none: a read there stays a warning.
 */
function thisCallSites(definition: SyntaxNode, shape: TreeShape): CallSite[] {
  const key = definition.computed ? null : memberKey(definition);
  if (key === null || definition.static === true || shape.writtenKeys.has(key) || shape.writesThisByKey) return [];
  const sites: CallSite[] = [];
  for (const constructed of shape.classes) {
    const chain = classChain(constructed, shape);
    if (chain === null || !chain.includes(shape.parents.get(shape.parents.get(definition)!)!) || instanceMethod(chain, key) !== definition || !constructedOnImport(constructed, shape)) continue;
    // An instance method's `this` is the instance it is called on, of this chain or of a subclass: followed while none may have another member under the key.
    const inMethods = !mayBeShadowed(chain, key, shape);
    for (const cls of chain) sites.push(...thisMemberCallSites(cls, key, shape, inMethods));
  }
  return sites;
}

/** Whether a class outside `chain` that may extend one of it (its chain is not known, or meets this one) has a member under `key`, or a computed one. */
function mayBeShadowed(chain: readonly SyntaxNode[], key: string, shape: TreeShape): boolean {
  return shape.classes.some((other) => {
    if (chain.includes(other)) return false;
    const above = classChain(other, shape);
    if (above !== null && !above.some((cls) => chain.includes(cls))) return false;
    return ((other.body as SyntaxNode).body as SyntaxNode[]).some((member) => member.computed === true || memberKey(member) === key);
  });
}

/** Whether a class is constructed where the import runs by its own `new` (not a subclass's: the instance then is that one's); found once per class. */
function constructedOnImport(cls: SyntaxNode, shape: TreeShape): boolean {
  const known = shape.constructedOnImport.get(cls);
  if (known !== undefined) return known;
  shape.constructedOnImport.set(cls, false);
  const constructions = declaredOrHeldCallSites(cls, shape, new Set()).filter((site) => !site.viaSubclass);
  const constructed = constructions.some(({ from, start }) => runsOnImport(from, start, shape));
  shape.constructedOnImport.set(cls, constructed);
  return constructed;
}

/** A class and each it extends, to the root; null when one is not known (extends an expression, or a class another name may hold) or may be changed (handed on, `this` handed on, a constructor returning a value). */
function classChain(cls: SyntaxNode, shape: TreeShape): SyntaxNode[] | null {
  if (shape.classChains.has(cls)) return shape.classChains.get(cls)!;
  shape.classChains.set(cls, null); // a class extending itself has no chain
  let chain: SyntaxNode[] | null = null;
  if (!classHandedOn(cls, shape) && !handsOnThisOrReturns(cls.body as SyntaxNode, shape)) {
    const superClass = cls.superClass as SyntaxNode | null;
    const extended = superClass ? extendedClasses(shape).get(superClass) : undefined;
    const above = extended ? classChain(extended, shape) : superClass ? null : [];
    chain = above && [cls, ...above];
  }
  shape.classChains.set(cls, chain);
  return chain;
}

/** The class each name a class extends holds (`class B extends A`: the `A` read there), of the classes of the module whose names keep their value. */
function extendedClasses(shape: TreeShape): Map<SyntaxNode, SyntaxNode> {
  if (shape.extendedClasses) return shape.extendedClasses;
  const extended = new Map<SyntaxNode, SyntaxNode>();
  const reads = new Set(shape.classes.map((cls) => cls.superClass).filter(isNode));
  for (const cls of shape.classes) {
    for (const variable of classVariables(cls, shape) ?? []) {
      for (const reference of variable.references) if (reads.has(reference.identifier as unknown as SyntaxNode)) extended.set(reference.identifier as unknown as SyntaxNode, cls);
    }
  }
  shape.extendedClasses = extended;
  return extended;
}

/** Whether a class may be changed by code other than its own: a name holding it is read but to construct it, extend it, read a member (not `prototype`) or export it. */
function classHandedOn(cls: SyntaxNode, shape: TreeShape): boolean {
  const parent = shape.parents.get(cls);
  const constructedWhereWritten = cls.type === 'ClassExpression' && parent?.type === 'NewExpression' && parent.callee === cls;
  const variables = constructedWhereWritten ? shape.scopes.getDeclaredVariables(cls as never) : classVariables(cls, shape);
  if (variables === null) return true;
  return variables.some((variable) => !keepsItsValue(variable) || variable.references.some((reference) => {
    const identifier = reference.identifier as unknown as SyntaxNode;
    const use = shape.parents.get(identifier);
    if (reference.init || use?.type === 'ExportSpecifier' || ((use?.type === 'NewExpression' || use?.type === 'ClassDeclaration' || use?.type === 'ClassExpression') && (use.callee ?? use.superClass) === identifier)) return false;
    return use?.type !== 'MemberExpression' || use.object !== identifier || ((use.property as SyntaxNode).type !== 'PrivateIdentifier' && [null, 'prototype'].includes(memberKey(use)));
  }));
}

/** The method a class's instances have under `key`, from its chain of classes (its own first); null when another member may be there (a field, an accessor, a computed member of any class of the chain). */
function instanceMethod(chain: readonly SyntaxNode[], key: string): SyntaxNode | null {
  const members = chain.flatMap((cls) => ((cls.body as SyntaxNode).body as SyntaxNode[]).filter((member) => member.type !== 'StaticBlock' && member.static !== true));
  if (members.some((member) => member.computed === true || (memberKey(member) === key && (member.type !== 'MethodDefinition' || member.kind !== 'method')))) return null;
  return members.find((member) => member.type === 'MethodDefinition' && memberKey(member) === key) ?? null;
}

/**
 * The calls `this.<key>(...)` a class's constructor body and instance field initializers make with
 * `this` the instance (in them or an arrow they hold), and, `inMethods`, its instance methods
 * (`start() { this.init(); }`, run where `start` is called on an instance), each judged where it is
 * written: one in a method runs on import where that method is called then.
 */
function thisMemberCallSites(cls: SyntaxNode, key: string, shape: TreeShape, inMethods: boolean): CallSite[] {
  const ordinaryMethod = (member: SyntaxNode) => inMethods && member.type === 'MethodDefinition' && member.kind === 'method' && member.static !== true;
  const members = ((cls.body as SyntaxNode).body as SyntaxNode[]).filter((member) => (member.type === 'MethodDefinition' && member.kind === 'constructor') || (member.type === 'PropertyDefinition' && member.static !== true) || ordinaryMethod(member));
  const sites: CallSite[] = [];
  const visit = (node: SyntaxNode) => {
    if (node.type === 'MemberExpression' && (node.object as SyntaxNode).type === 'ThisExpression' && memberKey(node) === key) {
      const args = callOf(node, shape);
      const from = args && scopeAround(node, shape);
      if (args && from) sites.push({ from, start: node.range?.[0] ?? -1, args });
    }
    for (const child of childNodes(node)) if (child.type === 'ArrowFunctionExpression' || !FUNCTIONS.has(child.type)) visit(child);
  };
  // A constructor's parameters are left out: whether a default runs is each construction's own.
  for (const member of members) if (isNode(member.value)) visit(member.type === 'MethodDefinition' ? ((member.value as SyntaxNode).body as SyntaxNode) : member.value);
  return sites;
}

/**
 * The calls of a private method (`#m() {...}`, `static #m() {...}`), each `x.#m(...)` its class's
 * body writes, and of a private getter (`get #m() {...}`), each read of `x.#m` (README "Bundling
 * real code"). No code outside the body names it, none replaces it (a private method is not
 * writable) and no subclass shadows it: where such a call runs, it runs this method or throws a
 * TypeError (`x` has none), and the import fails either way. A class written inside the body that
 * declares the same private name has its own.
 */
function privateCallSites(definition: SyntaxNode, shape: TreeShape): CallSite[] {
  const name = (definition.key as SyntaxNode).name;
  const body = shape.parents.get(definition)!;
  const sites: CallSite[] = [];
  const declares = (classBody: SyntaxNode) => (classBody.body as SyntaxNode[]).some((member) => (member.key as SyntaxNode | undefined)?.type === 'PrivateIdentifier' && (member.key as SyntaxNode).name === name);
  const visit = (node: SyntaxNode) => {
    if (node.type === 'ClassBody' && node !== body && declares(node)) return;
    const property = node.property as SyntaxNode | undefined;
    if (node.type === 'MemberExpression' && property?.type === 'PrivateIdentifier' && property.name === name && !mayShortCircuit(node)) {
      const args = definition.kind === 'get' ? (writtenMember(shape.parents.get(node)!) === node ? null : { at: [], rest: 'undefined' as const }) : definition.kind === 'method' ? callOf(node, shape) : null;
      const from = args && scopeAround(node, shape);
      if (args && from) sites.push({ from, start: node.range?.[0] ?? -1, args });
    }
    for (const child of childNodes(node)) visit(child);
  };
  visit(body);
  return sites;
}

/** Whether an optional link before a member may leave it unread (`x?.#read()`, `x?.y.#read()`, with `x` nullish); `this?.` never does. */
function mayShortCircuit(member: SyntaxNode): boolean {
  for (let link: SyntaxNode | undefined = member; link?.type === 'MemberExpression' || link?.type === 'CallExpression'; ) {
    const before = (link.object ?? link.callee) as SyntaxNode;
    if (link.optional === true && before.type !== 'ThisExpression') return true;
    link = before;
  }
  return false;
}

/**
 * The calls of a class's method (README "Bundling real code"): a static one as a member of the
 * class's name (`A.m()`), an instance one as a member of an instance constructed there (`new
 * A().m()`) or of the one name an instance is bound to (`const a = new A(); a.m()`). None when the
 * method may be replaced or shadowed first, as an object literal's is: another member of the class
 * of its key or a computed one, its key written through any member (`A.prototype.m = ...`, `a.m =
 * ...`, `this[k] = ...`), the class or an instance handed anywhere but to a member read or an
 * export (`use(a)`, `class B extends A`), `A.prototype` read, or, for an instance method, a class
 * that extends another (whose constructor may write the member).
 */
function methodCallSites(definition: SyntaxNode, shape: TreeShape): CallSite[] {
  const key = definition.computed ? null : memberKey(definition);
  const body = shape.parents.get(definition);
  const cls = body && shape.parents.get(body);
  if (key === null || !cls || shape.writtenKeys.has(key) || shape.writesThisByKey) return [];
  const others = (body!.body as SyntaxNode[]).filter((other) => other !== definition && other.type !== 'StaticBlock');
  if (others.some((other) => other.computed === true || memberKey(other) === key)) return [];
  const isStatic = definition.static === true;
  if (!isStatic && cls.superClass) return [];
  if (handsOnThisOrReturns(body!, shape)) return [];
  const variables = classVariables(cls, shape);
  if (variables === null) return [];
  const sites: CallSite[] = [];
  // A member read of a value held by a name or made there: the call of the method, another member, or null when the value is handed on.
  const memberUse = (value: SyntaxNode, reference: { from: Scope; start: number } | null, holder?: Variable): 'read' | null => {
    const parent = shape.parents.get(value);
    if (parent?.type === 'ExportSpecifier' || (holder && handedToOwnMethod(value, holder, body!.body as SyntaxNode[], isStatic, shape))) return 'read';
    if (parent?.type !== 'MemberExpression' || parent.object !== value) return null;
    // A private member (`A.#count`, `A.#read()`) is none a method may be replaced by.
    if (privateHandsNothing(parent, shape)) return 'read';
    const read = memberKey(parent);
    if (read === null || read === 'prototype') return null;
    const args = reference && read === key ? callOf(parent, shape) : null;
    if (args) sites.push({ ...reference!, args });
    return 'read';
  };
  for (const variable of variables) {
    for (const reference of variable.references) {
      if (reference.init) continue;
      const identifier = reference.identifier as unknown as SyntaxNode;
      const at = { from: reference.from, start: identifier.range?.[0] ?? -1 };
      if (isStatic) {
        const parent = shape.parents.get(identifier);
        if (parent?.type === 'NewExpression' && parent.callee === identifier) continue;
        if (memberUse(identifier, at, variable) === null) return [];
        continue;
      }
      const construction = shape.parents.get(identifier);
      if (construction?.type !== 'NewExpression' || construction.callee !== identifier) {
        // A static member read (`A.x`) replaces no instance method; `A.prototype` may.
        if (memberUse(identifier, null) === null) return [];
        continue;
      }
      const declarator = shape.parents.get(construction);
      if (declarator?.type === 'VariableDeclarator' && declarator.init === construction) {
        const instance = declaredVariable(declarator, shape);
        if (!instance || !keepsItsValue(instance)) return [];
        for (const use of instance.references) {
          if (use.init) continue;
          const named = use.identifier as unknown as SyntaxNode;
          if (memberUse(named, { from: use.from, start: named.range?.[0] ?? -1 }, instance) === null) return [];
        }
      } else if (memberUse(construction, at) === null) return [];
    }
  }
  return sites;
}

/**
 * Whether a value is handed only as `this` to a method of its own class (`a.m.call(a)`,
 * `A.m.apply(A, [])`, `a.m.bind(a)`), the one member of its key, of the kind (static or not) the
 * value is: that method's code, judged with its class's, gets it, and no other code.
 */
function handedToOwnMethod(value: SyntaxNode, holder: Variable, members: SyntaxNode[], isStatic: boolean, shape: TreeShape): boolean {
  const call = shape.parents.get(value);
  const callee = call?.callee as SyntaxNode | undefined;
  if (call?.type !== 'CallExpression' || (call.arguments as SyntaxNode[])[0] !== value || callee?.type !== 'MemberExpression' || !HANDING_THIS.has(memberKey(callee) ?? '')) return false;
  const method = callee.object as SyntaxNode;
  const key = method.type === 'MemberExpression' ? memberKey(method) : null;
  const named = members.filter((member) => !member.computed && memberKey(member) === key);
  const own = key !== null && named.length === 1 && named[0]!.type === 'MethodDefinition' && named[0]!.kind === 'method' && (named[0]!.static === true) === isStatic;
  return own && holder.references.some((reference) => (reference.identifier as unknown) === method.object);
}

/** The methods of a function that call it with their first argument as `this`. */
const HANDING_THIS = new Set(['call', 'apply', 'bind']);

/**
 * Whether a class's code may put another member where its method is looked up: `this` used but as
 * the object of a named member read (`use(this)`, `Object.defineProperty(this, ...)`; a private
 * one, `this.#count`, `this.#read()`, hands it to no other code: `privateHandsNothing`), or a
 * `return` of a value (a constructor returning another object than the instance).
 */
function handsOnThisOrReturns(node: SyntaxNode, shape: TreeShape, inConstructor = false, parent?: SyntaxNode): boolean {
  const named = parent?.type === 'MemberExpression' && parent.object === node && (memberKey(parent) !== null || privateHandsNothing(parent, shape));
  if (node.type === 'ThisExpression' && !named) return true;
  if (inConstructor && node.type === 'ReturnStatement' && node.argument) return true;
  // A `return` in a function the constructor holds returns from that function (an arrow's too).
  const constructorCode = node.type === 'MethodDefinition' ? node.kind === 'constructor' : inConstructor && (!FUNCTIONS.has(node.type) || parent?.type === 'MethodDefinition');
  return childNodes(node).some((child) => handsOnThisOrReturns(child, shape, constructorCode, node));
}

/**
 * Whether a private member's use hands its object to no code but its class's: read (a field, or a
 * getter, run with it), or called when it is a private method; not a call of a private field,
 * whose function may be any code (`#f = use; this.#f()`).
 */
function privateHandsNothing(member: SyntaxNode, shape: TreeShape): boolean {
  const property = member.property as SyntaxNode;
  if (property.type !== 'PrivateIdentifier') return false;
  const call = shape.parents.get(member);
  if (call?.type !== 'CallExpression' || call.callee !== member) return true;
  for (let current = shape.parents.get(member); current !== undefined; current = shape.parents.get(current)) {
    const declared = current.type === 'ClassBody' ? (current.body as SyntaxNode[]).find((other) => (other.key as SyntaxNode | undefined)?.type === 'PrivateIdentifier' && (other.key as SyntaxNode).name === property.name) : undefined;
    if (declared) return declared.type === 'MethodDefinition' && declared.kind === 'method';
  }
  return false;
}

/** The variables holding a class: the name a declaration binds (around it and inside it), or the one name a class expression is bound to; null when one may be written again. */
function classVariables(cls: SyntaxNode, shape: TreeShape): Variable[] | null {
  const name = (cls.id as SyntaxNode | null)?.name;
  const variables = name === undefined ? [] : shape.scopes.getDeclaredVariables(cls as never).filter((declared) => declared.name === name);
  const declarator = shape.parents.get(cls);
  if (cls.type === 'ClassExpression') {
    const held = declarator?.type === 'VariableDeclarator' && declarator.init === cls ? declaredVariable(declarator, shape) : null;
    if (!held) return null;
    variables.push(held);
  }
  return variables.length > 0 && variables.every(keepsItsValue) ? variables : null;
}

/** The calls of a function or class: by the name its declaration binds, or through what holds its value. */
function declaredOrHeldCallSites(value: SyntaxNode, shape: TreeShape, held: Set<Variable>): CallSite[] {
  if (value.type !== 'ClassDeclaration' && value.type !== 'FunctionDeclaration') return heldValueCallSites(value, shape, held);
  const name = (value.id as SyntaxNode | null)?.name;
  // The name bound around the declaration: a class's is bound inside it too (its own methods' `new A()`), a function's parameters are its own.
  const variable = shape.scopes.getDeclaredVariables(value as never).find((declared) => declared.name === name && (declared.scope.block as unknown) !== value);
  return variable ? variableCallSites(variable, shape, held) : [];
}

/**
 * The constructions of a class that run a class it extends (`class B extends A {}; new B()` runs
 * A's constructor and fields): each of its own, when it has no constructor (the implicit one
 * passes its arguments on); else each `super(...)` its constructor makes, wherever it is written
 * there: as a statement, in a comma expression or a `return` (`(super(), 0)`, `return super()`),
 * in an arrow (`const s = () => super(); s()`), each where it runs as any call is judged (the
 * production build's minifier writes the first two as a statement: both verdicts agree).
 */
function subclassCallSites(subclass: SyntaxNode, shape: TreeShape, held: Set<Variable>): CallSite[] {
  const constructor = ((subclass.body as SyntaxNode).body as SyntaxNode[]).find((member) => member.type === 'MethodDefinition' && member.kind === 'constructor');
  if (!constructor) return declaredOrHeldCallSites(subclass, shape, held);
  const sites: CallSite[] = [];
  const visit = (node: SyntaxNode) => {
    const callee = node.callee as SyntaxNode | undefined;
    if (node.type === 'CallExpression' && callee?.type === 'Super') {
      const from = scopeAround(node, shape);
      if (from) sites.push({ from, start: node.range?.[0] ?? -1, args: argumentsOf(node.arguments as SyntaxNode[]) });
    }
    // `super` names the class around it: only an arrow's is the constructor's.
    for (const child of childNodes(node)) if (child.type === 'ArrowFunctionExpression' || !FUNCTIONS.has(child.type)) visit(child);
  };
  visit((constructor.value as SyntaxNode).body as SyntaxNode);
  return sites;
}

/** The innermost scope holding a node: where code written there is judged from. */
function scopeAround(node: SyntaxNode, shape: TreeShape): Scope | null {
  for (let current: SyntaxNode | undefined = node; current !== undefined; current = shape.parents.get(current)) {
    const scope = shape.scopes.acquire(current as never, true);
    if (scope) return scope;
  }
  return null;
}

/** A call of a function: the scope it is made in, where it is written, and what it passes. */
interface CallSite {
  from: Scope;
  start: number;
  args: Arguments;
  /** A class's constructor run by the construction of a subclass (its `super()`): the instance made is the subclass's. */
  viaSubclass?: true;
}

/** The calls of a value (a function, or a name read for one) through what holds it: the name a declarator binds it to, or the property of an object a name holds. */
function heldValueCallSites(value: SyntaxNode, shape: TreeShape, held: Set<Variable>): CallSite[] {
  const parent = shape.parents.get(value);
  if (parent?.type === 'VariableDeclarator' && parent.init === value) {
    const variable = declaredVariable(parent, shape);
    return variable ? variableCallSites(variable, shape, held) : [];
  }
  if (parent?.type === 'Property' && parent.value === value) return propertyCallSites(parent, shape, held);
  const bound = boundCopyCallSites(value, shape, held);
  if (bound) return bound;
  if ((parent?.type === 'ClassDeclaration' || parent?.type === 'ClassExpression') && parent.superClass === value) return subclassCallSites(parent, shape, held).map((site) => ({ ...site, viaSubclass: true }));
  // A class or function written where it is constructed or called (`new (class { constructor() {...} })()`).
  const args = value.type === 'ClassExpression' ? callOf(value, shape) : null;
  const from = args && scopeAround(parent!, shape);
  if (args && from) return [{ from, start: value.range?.[0] ?? -1, args }];
  // An element of an array literal whose callback each element is handed to (`[read].forEach((f) => f())`): the calls of that parameter.
  const method = parent?.type === 'ArrayExpression' ? shape.parents.get(parent) : undefined;
  const call = method?.type === 'MemberExpression' && method.object === parent ? shape.parents.get(method) : undefined;
  const callback = call?.type === 'CallExpression' && call.callee === method ? elementCallback(call) : null;
  const element = (callback?.params as SyntaxNode[] | undefined)?.[0];
  if (callback && element?.type === 'Identifier') {
    const variable = shape.scopes.getDeclaredVariables(callback as never).find((declared) => declared.name === element.name);
    return variable ? variableCallSites(variable, shape, held) : [];
  }
  return [];
}

/**
 * The calls of a bound copy of a value held by a name (`const g = read.bind(null, 1); g()`), as
 * `read.bind(null, 1)()` is followed (README "Bundling real code"): each call of that name, the
 * bound arguments first. Null when the value is no `.bind(...)` a declarator holds.
 */
function boundCopyCallSites(value: SyntaxNode, shape: TreeShape, held: Set<Variable>): CallSite[] | null {
  const member = shape.parents.get(value);
  if (member?.type !== 'MemberExpression' || member.object !== value || memberKey(member) !== 'bind') return null;
  const call = shape.parents.get(member);
  const declarator = call?.type === 'CallExpression' && call.callee === member ? shape.parents.get(call) : undefined;
  if (declarator?.type !== 'VariableDeclarator' || declarator.init !== call) return null;
  const variable = declaredVariable(declarator, shape);
  if (!variable) return [];
  const boundArguments = argumentsOf((call!.arguments as SyntaxNode[]).slice(1));
  return variableCallSites(variable, shape, held).map((site) => ({ ...site, args: followedBy(boundArguments, site.args) }));
}

/** The variable a declarator binding one name declares (`var read = ...`), if it does. */
function declaredVariable(declarator: SyntaxNode, shape: TreeShape): Variable | null {
  const id = declarator.id as SyntaxNode;
  if (id.type !== 'Identifier') return null;
  return shape.scopes.getDeclaredVariables(declarator as never).find((variable) => variable.name === id.name) ?? null;
}

/**
 * The names a declaration takes from the object `init` by destructuring (`const { Worker: W,
 * SharedWorker } = globalThis`), each with the member's key: a plain name only, not one with a
 * default (`{ Worker: W = Other }`), nested, computed by a name, or a rest.
 */
function destructuredMembers(declarator: SyntaxNode, init: SyntaxNode, shape: TreeShape): { key: string; variable: Variable | null }[] {
  const pattern = declarator.id as SyntaxNode | undefined;
  if (declarator.type !== 'VariableDeclarator' || declarator.init !== init || pattern?.type !== 'ObjectPattern') return [];
  const declared = shape.scopes.getDeclaredVariables(declarator as never);
  return (pattern.properties as SyntaxNode[]).flatMap((property) => {
    const key = property.type === 'Property' ? memberKey(property) : null;
    const value = property.value as SyntaxNode | undefined;
    if (key === null || value?.type !== 'Identifier') return [];
    return [{ key, variable: declared.find((variable) => variable.name === value.name) ?? null }];
  });
}

/** Whether a variable keeps the value of its one declaration: declared once, written nowhere else. */
export function keepsItsValue(variable: Variable): boolean {
  return variable.defs.length === 1 && !variable.references.some((reference) => reference.isWrite() && !reference.init);
}

/**
 * The arguments of the call a callee makes at once, if it does: `read()`, `new Read()`,
 * `(0, read)()`, `` read`a` ``, `read.call(...)`, `read.apply(...)`, `read.bind(...)()`,
 * `Reflect.apply(read, ...)`, `Reflect.construct(Read, ...)`.
 */
function callOf(callee: SyntaxNode, shape: TreeShape): Arguments | null {
  let value = callee;
  let parent = shape.parents.get(value);
  // `(0, read)()`: the comma expression's value is its last, called as such.
  while (parent?.type === 'SequenceExpression' && (parent.expressions as SyntaxNode[]).at(-1) === value) {
    value = parent;
    parent = shape.parents.get(value);
  }
  if ((parent?.type === 'CallExpression' || parent?.type === 'NewExpression') && parent.callee === value) return argumentsOf(parent.arguments as SyntaxNode[]);
  if (parent?.type === 'TaggedTemplateExpression' && parent.tag === value) {
    // A tag gets the strings first, then each substitution.
    return { at: ['value', ...((parent.quasi as SyntaxNode).expressions as SyntaxNode[]).map(passed)], rest: 'undefined' };
  }
  const reflected = parent?.type === 'CallExpression' && (parent.arguments as SyntaxNode[])[0] === value ? reflectMethod(parent.callee as SyntaxNode, shape) : null;
  if (reflected) return listedArguments((parent!.arguments as SyntaxNode[])[reflected === 'apply' ? 2 : 1]);
  if (parent?.type !== 'MemberExpression' || parent.object !== value || parent.computed) return null;
  const method = (parent.property as SyntaxNode).name;
  const call = shape.parents.get(parent);
  if (call?.type !== 'CallExpression' || call.callee !== parent) return null;
  const args = call.arguments as SyntaxNode[];
  if (method === 'call') return argumentsOf(args.slice(1));
  if (method === 'apply') return listedArguments(args[1]);
  if (method !== 'bind') return null;
  const boundCall = callOf(call, shape);
  return boundCall && followedBy(argumentsOf(args.slice(1)), boundCall);
}

/** `Reflect.apply` or `Reflect.construct` of the global `Reflect` (none a scope binds), by which a callee is called with an argument list. */
function reflectMethod(callee: SyntaxNode, shape: TreeShape): 'apply' | 'construct' | null {
  const object = callee.object as SyntaxNode | undefined;
  if (callee.type !== 'MemberExpression' || object?.type !== 'Identifier' || object.name !== 'Reflect' || !shape.freeIdentifiers.has(object)) return null;
  const method = memberKey(callee);
  return method === 'apply' || method === 'construct' ? method : null;
}

/** The calls of a function a variable holds: by its name, and through each other name or object property its value is put in. */
function variableCallSites(variable: Variable, shape: TreeShape, held: Set<Variable>): CallSite[] {
  if (held.has(variable) || !keepsItsValue(variable)) return [];
  held.add(variable);
  const sites: CallSite[] = [];
  for (const reference of variable.references) {
    if (reference.init) continue;
    const identifier = reference.identifier as unknown as SyntaxNode;
    const args = callOf(identifier, shape);
    if (args) sites.push({ from: reference.from, start: identifier.range?.[0] ?? -1, args });
    else sites.push(...heldValueCallSites(identifier, shape, held));
  }
  return sites;
}

/**
 * The calls of a function an object literal's property holds (`{ read }`, `{ read() {...} }`), as
 * a member of the one name the object is bound to (`api.read()`, `api.read.call(...)`). None when
 * the property may be replaced first: a later property of its key or a spread, its key written
 * through any member, the object handed anywhere but to a member read or an export.
 */
function propertyCallSites(property: SyntaxNode, shape: TreeShape, held: Set<Variable>): CallSite[] {
  const key = memberKey(property);
  const object = shape.parents.get(property);
  if (key === null || property.kind !== 'init' || object?.type !== 'ObjectExpression' || shape.writtenKeys.has(key) || shape.writesThisByKey) return [];
  const properties = object.properties as SyntaxNode[];
  if (properties.slice(properties.indexOf(property) + 1).some((later) => later.type === 'SpreadElement' || memberKey(later) === key)) return [];
  const declarator = shape.parents.get(object);
  const variable = declarator?.type === 'VariableDeclarator' && declarator.init === object ? declaredVariable(declarator, shape) : null;
  if (!variable || held.has(variable) || !keepsItsValue(variable)) return [];
  held.add(variable);
  const sites: CallSite[] = [];
  for (const reference of variable.references) {
    if (reference.init) continue;
    const identifier = reference.identifier as unknown as SyntaxNode;
    const parent = shape.parents.get(identifier);
    if (parent?.type === 'ExportSpecifier') continue;
    if (parent?.type !== 'MemberExpression' || parent.object !== identifier || memberKey(parent) === null) return [];
    const args = memberKey(parent) === key ? callOf(parent, shape) : null;
    if (args) sites.push({ from: reference.from, start: identifier.range?.[0] ?? -1, args });
  }
  return sites;
}

/**
 * A name read in a condition whose variable keeps the value of a test (`const isNode =
 * !!globalThis.process; if (isNode) ...`) guards the names that test tests, as the test written
 * there would. A variable written again (`let isNode = ...; isNode = true`) guards nothing.
 */
function guardsHeldInVariables(shape: TreeShape): void {
  for (const scope of shape.scopes.scopes) {
    for (const reference of scope.references) {
      if (!shape.conditionNames.has(reference.identifier as unknown as SyntaxNode) || !reference.resolved || !keepsItsValue(reference.resolved)) continue;
      const names = shape.guardDeclarators.get(reference.resolved.defs[0]!.node as unknown as SyntaxNode);
      for (const name of names ?? []) shape.tested.add(name);
    }
  }
}

/**
 * The diagnostics of a browser build's code (README "Bundling real code"): a Node global read when
 * the module is imported (at the top level, in a function called at once, in a static field) is
 * an error (the page throws at once); read inside a function only, a warning (it throws when
 * called, and such reads are often guarded); none for such a read of a
 * name the code tests (a guard: `typeof`, `globalThis.process`, `'process' in globalThis`). In a
 * module bundling a `.jsx` or `.tsx` source compiled as classic JSX, its factory or fragment
 * unbound is an error wherever it is: every JSX element evaluates it (`jsxNames`: the names so
 * judged, which the judgement of names nothing binds leaves). `sources`: the files whose code is in
 * the output, placed from one read each.
 */
export function freeGlobalDiagnostics(reads: PlacedReads, built: Uint8Array, sources: readonly string[], entry: string, runsNoCode: (specifier: string) => boolean = () => false): { errors: Diagnostic[]; warnings: Diagnostic[]; jsxNames: ReadonlySet<string> } {
  const jsx = classicJsx(reads, sources.filter((file) => JSX_SOURCE.test(file)));
  const jsxNames = new Set(jsx.flatMap(({ names }) => names));
  const errors: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  // The bytes are searched for each name before any text is made of them: most outputs hold none.
  const bytes = bufferView(built);
  const names = [...new Set([...Object.keys(NODE_GLOBALS), ...jsxNames])].filter((name) => bytes.includes(name));
  if (names.length === 0) return { errors, warnings, jsxNames };
  const code = bytes.toString('utf8');
  const free = freeReferences(code, names);
  if (free === null || free.size === 0) return { errors, warnings, jsxNames };
  for (const [name, use] of free) {
    if (jsxNames.has(name)) {
      const compiled = jsx.filter(({ names }) => names.includes(name));
      const files = compiled.map(({ source }) => source);
      errors.push(diagnostic('BUNDLE_ERROR', jsxNameUnbound(name, compiled[0]!), jsxPlace(reads, files) ?? namePlace(reads, files, name) ?? { file: entry }));
      continue;
    }
    // A guard tested anywhere guards the reads that may not run, never one the import surely
    // makes: `if (typeof process < 'u') {...}` before `process.env.X` at the top level throws.
    if ((use.guarded || use.defined) && !use.onImport) continue;
    const where = readPlace(reads, code, sources, name, use) ?? { file: entry };
    const read = use.member === undefined ? name : `${name}.env.${use.member}`;
    const remedy = NODE_GLOBALS[name as NodeGlobal];
    // The first module imported for its effects that may run code: a workspace stylesheet module's code is empty.
    const importedFirst = use.importedForEffects?.find((specifier) => !runsNoCode(specifier));
    if (use.onImport && use.defined) {
      // The module writes the name on the global object (a shim, maybe in a file it imports first):
      // the read runs on a page when that write comes first, which the order of the code decides.
      warnings.push(diagnostic('BUNDLE_WARNING', `${read} is read when the module is imported, and ${name} is Node's: no browser defines it, but the module writes ${name} as a member of the global object (globalThis.${name} = ..., Object.assign(globalThis, ...) or Object.defineProperty), so it is taken as defined; the page throws "ReferenceError: ${name} is not defined" if that write does not run before the read`, where));
    } else if (use.onImport && importedFirst !== undefined) {
      // The module imported for its effects runs first, and may be a shim (a polyfill module of its
      // own): its code is another module's build, not read here, so whether it writes the name is unknown.
      // Judged again across modules once those builds are known (src/workspace/shim-reads.ts).
      warnings.push(diagnostic('BUNDLE_WARNING', effectsShimWarningText(read, name, importedFirst, remedy), where));
    } else if (use.onImport) {
      errors.push(diagnostic('BUNDLE_ERROR', `${read} is read when the module is imported, and ${name} is Node's: no browser defines it, so the page throws "ReferenceError: ${name} is not defined"; ${remedy}`, where));
    } else {
      warnings.push(diagnostic('BUNDLE_WARNING', `${read} is read inside a function (or in a branch the import may not take), and ${name} is Node's: no browser defines it, so that code throws "ReferenceError: ${name} is not defined" when it runs, unless it tests typeof ${name} !== 'undefined' first (a module that tests it is not told); ${remedy}`, where));
    }
  }
  return { errors, warnings, jsxNames };
}

/** What throws, and what to write, for JSX whose factory or fragment `name` nothing binds. */
function jsxNameUnbound(name: string, { chosenBy, factory, fragment }: JsxCompilation): string {
  const calls = `calls of ${[factory, fragment].filter((called) => called.split('.')[0] === name).join(' and ')}`;
  const what = factory.split('.')[0] === name ? 'every element' : 'every fragment (<>...</>)';
  const throws = `nothing binds ${name}: ${what} throws "ReferenceError: ${name} is not defined" on the page`;
  if (chosenBy === null) {
    return `this JSX compiles to ${calls} (esbuild's default when no tsconfig sets "jsx"), and ${throws}. Set "jsx": "react-jsx" in the compilerOptions of tsconfig.json (and "jsxImportSource" for a library other than React, such as "preact"), or import React from 'react' in each file writing JSX`;
  }
  if ('pragma' in chosenBy) return `this JSX compiles to ${calls} (the file's @jsx or @jsxFrag comment), and ${throws}. Import ${name} in each file writing JSX`;
  const kept = chosenBy.jsx === 'preserve' || chosenBy.jsx === 'react-native';
  const why = kept ? `"jsx": "${chosenBy.jsx}" of ${chosenBy.config}: esbuild compiles JSX whatever it says, since no browser parses JSX, with the classic factory` : `the compilerOptions of ${chosenBy.config}`;
  return `this JSX compiles to ${calls} (${why}), and ${throws}. Import ${name} in each file writing JSX, or set "jsx": "react-jsx" in ${chosenBy.config} (with "jsxImportSource" for a library other than React, such as "preact")`;
}

/**
 * Where a source writes the read told: the place of the parsed read in the code, mapped back to its
 * source by the development build's inline source map. A build without one (production,
 * `sourcemap=none`), or a mapped place no source holds: the first place a source writes the read
 * (`process.env.API_URL`, else the name) as a word.
 */
export function readPlace(reads: PlacedReads, code: string, sources: readonly string[], name: string, use: FreeUse): { file: string; line: number; column: number } | null {
  const mapped = use.at === undefined ? null : inlineMappedPlace(code, use.at);
  // A build without a map is not compiled again to place it: esbuild's synchronous compile would
  // hold the service's one thread (its worker's start alone 0.7-0.9 s on a busy machine).
  const placed = mapped ? sourcePlace(reads, sources, name, mapped) : null;
  if (placed) return placed;
  const member = use.member === undefined ? '' : `(?=\\s*\\.\\s*env\\s*\\.\\s*${use.member.replace(/\$/g, '\\$')}(?![\\w$]))`;
  return (member ? namePlace(reads, sources, name, member) : null) ?? namePlace(reads, sources, name);
}

/** A mapped place of a read, checked against its source's text: the mapping nearest before the read may start the expression holding it, so the read is the name's first word from there on its line. */
function sourcePlace(reads: PlacedReads, sources: readonly string[], name: string, mapped: MappedPlace): { file: string; line: number; column: number } | null {
  const text = sources.includes(mapped.source) ? reads.text(mapped.source) : null;
  const lineStart = text === null ? -1 : lineOffset(text, mapped.line);
  if (text === null || lineStart < 0) return null;
  const lineEnd = text.indexOf('\n', lineStart);
  const rest = text.slice(lineStart + mapped.column, lineEnd < 0 ? undefined : lineEnd);
  const at = new RegExp(`(?<![\\w$.])${name}(?![\\w$])`).exec(rest)?.index;
  return at === undefined ? null : { file: mapped.source, line: mapped.line, column: mapped.column + at + 1 };
}

/** The offset where line `line` (from 1) of `text` starts; -1 past its end. */
function lineOffset(text: string, line: number): number {
  let at = 0;
  for (let current = 1; current < line; current++) {
    at = text.indexOf('\n', at) + 1;
    if (at === 0) return -1;
  }
  return at;
}

// The first place a source writes `name` as a name read (not a property: `.name`, not a key
// `{ name: ...}`, not the operand of `typeof`, not TypeScript's `declare function name(` or
// `declare const name`, which esbuild erases), outside a line comment or a string of its line:
// the place only, as scope analysis of the output said that a read exists.
function namePlace(reads: PlacedReads, sources: readonly string[], name: string, followedBy = ''): { file: string; line: number; column: number } | null {
  const pattern = new RegExp(`(?<![\\w$.]|\\btypeof\\s*\\(?\\s*|\\bdeclare\\s+(?:function|const|let|var)\\s+)${name}(?![\\w$])(?!\\s*:[^:])${followedBy}`, 'g');
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
  const element = /(?:^|[(=,?:&|[{}]|=>|\breturn)\s*(<[A-Za-z>])/gm;
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
