// Names and values a module's built code uses where the import runs that surely throw on a page,
// beyond Node's globals (README "Bundling real code", names nothing binds). esbuild writes an ES
// module, which is strict code, from sources often written as sloppy scripts: an implicit global
// (`cache = {}`), a function declared in a block and called outside it, `arguments` at the top level,
// and `this` at the top level, which esbuild writes as `void 0` since an ES module's is undefined.
// Each built, and `/state` called the module valid, while Chromium threw when it imported it.
//
// Only sure throws are told, so a name the page may define is never judged: one of Chromium's
// window (`onload = f`, `name = ...` set the global object's property), one starting with a
// capital (an interface: `window-names.ts`), one the code tests or writes on the global object, and
// any name when the module first imports another for its effects, which may define it. The scope
// analysis and the walk deciding what runs on import are those of the Node globals' judgement.
import type { Reference, Scope, Variable } from 'eslint-scope';
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import type { PlacedReads } from './placed-reads.js';
import { bufferView } from '../outputs/buffer-view.js';
import { analysedModule, keepsItsValue, NODE_GLOBALS, readPlace, runsOnImport, type SyntaxNode, type TreeShape } from './free-globals.js';
import { WINDOW_NAMES } from './window-names.js';

/** A source written in JavaScript, where no checker looks at what a sloppy script allowed. */
const SCRIPT_SOURCE = /\.(?:[cm]?js|jsx)$/;

/** The names judged: those starting with a lowercase letter, `_` or `$` (see window-names.ts). */
const JUDGED = /^[a-z_$]/;

const STRICT = 'an ES module is strict code (esbuild writes one, whatever the source was written as)';

/**
 * The errors of a browser build's code (README "Bundling real code"): where the import runs, a write
 * of a name nothing binds and Chromium's window lacks, a read of `arguments` outside every function,
 * a read of a name whose only function is declared in a block, and a member of a value surely
 * `undefined` (`this` at the top level). `runsNoCode` tells a module imported for its effects that
 * runs no code (a stylesheet module of the workspace).
 */
export function unboundNameDiagnostics(reads: PlacedReads, built: Uint8Array, sources: readonly string[], entry: string, runsNoCode: (specifier: string) => boolean = () => false): Diagnostic[] {
  // A parse and scope analysis costs about a millisecond of CPU per kilobyte of code, on every
  // build and rebuild, so it is made only where these can be (README "Bundling real code"): the
  // sloppy script's habits in a module written in JavaScript (TypeScript's checker refuses each in
  // a .ts source), and a member of `this` where esbuild wrote a top-level one as `void 0`.
  const bytes = bufferView(built);
  const scriptHabits = sources.some((file) => SCRIPT_SOURCE.test(file));
  if (!scriptHabits && !bytes.includes('void 0')) return [];
  const code = bytes.toString('utf8');
  const analysed = analysedModule(code);
  if (analysed === null || analysed.globalScope === null) return [];
  const { globalScope, shape } = analysed;
  const errors: Diagnostic[] = [];
  const place = (name: string, at: number) => readPlace(reads, code, sources, name, { onImport: true, inFunction: false, at }) ?? { file: entry };
  // A module imported first for its effects may write any name on the global object (a shim).
  const mayBeDefined = shape.importedForEffects.some((specifier) => !runsNoCode(specifier));
  const told = new Set<string>();
  for (const reference of mayBeDefined || !scriptHabits ? [] : globalScope.through) {
    const identifier = reference.identifier as unknown as SyntaxNode;
    const name = identifier.name as string;
    const at = identifier.range![0];
    if (told.has(name) || !surelyUnbound(name, identifier, shape) || !runsOnImport(reference.from, at, shape)) continue;
    const why = unboundUse(name, reference, shape, reads, sources);
    if (why === null) continue;
    told.add(name);
    errors.push(diagnostic('BUNDLE_ERROR', why, place(name, at)));
  }
  // The built code's names are neither quoted nor looked for in the sources: a minified build
  // renamed them. The place is where a source writes `this`, in both variants alike.
  for (const { written, at } of undefinedMembers(shape)) {
    const [done, thrown] = written ? ['written', 'Cannot set properties of undefined'] : ['read', 'Cannot read properties of undefined'];
    errors.push(diagnostic('BUNDLE_ERROR', `a member of this is ${done} when the module is imported (of this itself, or of a name or parameter holding it): \`this\` at the top level of an ES module is undefined (esbuild writes it as void 0), so the page throws "TypeError: ${thrown}"; write globalThis (or window) where the code means the global object`, place('this', at)));
  }
  return errors;
}

/** Whether no page defines `name`: not Node's (judged on their own), not Chromium's window's, not tested nor written on the global object by the code. */
function surelyUnbound(name: string, identifier: SyntaxNode, shape: TreeShape): boolean {
  if (!JUDGED.test(name) || WINDOW_NAMES.has(name) || Object.hasOwn(NODE_GLOBALS, name)) return false;
  if (shape.typeofOperands.has(identifier) || shape.tested.has(name) || shape.definedOnGlobal.has(name)) return false;
  // A name a guard held in a variable tests (`const has = 'cache' in globalThis`) is tested too.
  return ![...shape.guardDeclarators.values()].some((names) => names.has(name));
}

/** Why a use of a name nothing binds surely throws, or null when it may not (a read of a name a page's script may define). */
function unboundUse(name: string, reference: Reference, shape: TreeShape, reads: PlacedReads, sources: readonly string[]): string | null {
  if (reference.isWrite()) {
    return `${name} is written when the module is imported, and nothing declares it: ${STRICT}, where a write of a name nothing binds throws "ReferenceError: ${name} is not defined" (a sloppy script made it a global); declare it (let ${name} = ...), or write globalThis.${name} for a global`;
  }
  if (name === 'arguments') {
    return `arguments is read when the module is imported, outside every function (an arrow has none of its own): nothing binds it there, so the page throws "ReferenceError: arguments is not defined"; read the arguments of the function meant, or give it a rest parameter (...args)`;
  }
  if (!declaredInBlockOnly(name, reads, sources, shape)) return null;
  return `${name} is read when the module is imported, and the function ${name} is declared only inside a block: ${STRICT}, where such a function is bound in its block alone (a sloppy script hoisted it), so the page throws "ReferenceError: ${name} is not defined"; declare the function outside the block (or assign it to a let declared there)`;
}

/**
 * Whether a function `name` is declared only in a block: the built code declares a function in a
 * block (esbuild writes `{ function helper() {} }` of a module as `{ let helper2 = function() {} }`,
 * renamed so as not to bind the free read, and minified `{ let e = function() {} }`), and a source
 * of the module declares `function name(`. The name is looked for in the sources' text since the
 * minified build keeps none: the development and production verdicts agree.
 */
function declaredInBlockOnly(name: string, reads: PlacedReads, sources: readonly string[], shape: TreeShape): boolean {
  const inBlock = shape.scopes.scopes.some((scope) => (scope.type === 'block' || scope.type === 'switch') && scope.variables.some(declaresFunction));
  if (!inBlock) return false;
  // Not TypeScript's `declare function gtag(...)`: a page's global, which the code binds nowhere.
  const declaration = new RegExp(`(?<![\\w$.])(?<!\\bdeclare\\s+)function\\s*\\*?\\s*${name.replace(/\$/g, '\\$')}\\s*\\(`);
  return sources.some((file) => declaration.test(reads.text(file) ?? ''));
}

function declaresFunction(variable: Variable): boolean {
  const definition = variable.defs[0] as unknown as { type: string; node: SyntaxNode } | undefined;
  if (definition?.type === 'FunctionName') return true;
  const init = definition?.type === 'Variable' ? (definition.node.init as SyntaxNode | null) : null;
  return init?.type === 'FunctionExpression';
}

interface UndefinedMember {
  /** What holds undefined: `this` (written `void 0`), or the name holding it. */
  name: string;
  written: boolean;
  at: number;
}

/**
 * The members the import surely reads or writes of a value surely `undefined`: of `void 0` itself
 * (esbuild's `this` at the top level), of a name declared once to hold it and never written again
 * (`var root = this`), and of a parameter a function called where it is written receives it for
 * (`(function (root) { root.x = 1; })(this)`). An optional member (`root?.x`) throws nothing.
 */
function undefinedMembers(shape: TreeShape): UndefinedMember[] {
  const found: UndefinedMember[] = [];
  const told = new Set<string>();
  const tell = (object: SyntaxNode, name: string, from: Scope) => {
    const member = shape.parents.get(object);
    if (member?.type !== 'MemberExpression' || member.object !== object || member.optional === true || told.has(name)) return;
    const at = object.range![0];
    if (!runsOnImport(from, at, shape)) return;
    const parent = shape.parents.get(member);
    const written = (parent?.type === 'AssignmentExpression' && parent.left === member) || (parent?.type === 'UpdateExpression' && parent.argument === member);
    told.add(name);
    found.push({ name, written, at });
  };
  for (const node of shape.parents.keys()) {
    if (isVoid(node)) tell(node, 'this', scopeOf(node, shape));
  }
  for (const scope of shape.scopes.scopes) {
    for (const reference of scope.references) {
      if (reference.resolved !== null && holdsUndefined(reference.resolved, shape)) tell(reference.identifier as unknown as SyntaxNode, reference.identifier.name, reference.from);
    }
  }
  return found.sort((a, b) => a.at - b.at);
}

const isVoid = (node: unknown): boolean => (node as SyntaxNode | null)?.type === 'UnaryExpression' && (node as SyntaxNode).operator === 'void' && ((node as SyntaxNode).argument as SyntaxNode).type === 'Literal';

/** The innermost scope around a node. */
function scopeOf(node: SyntaxNode, shape: TreeShape): Scope {
  for (let current: SyntaxNode | undefined = node; current !== undefined; current = shape.parents.get(current)) {
    const scope = shape.scopes.acquire(current as never, true);
    if (scope) return scope;
  }
  return shape.scopes.globalScope!;
}

/** Whether a variable surely holds `undefined`: never written again, declared as `void 0`, or a parameter a call where its function is written leaves so. */
function holdsUndefined(variable: Variable, shape: TreeShape): boolean {
  if (!keepsItsValue(variable)) return false;
  const definition = variable.defs[0] as unknown as { type: string; node: SyntaxNode; name: SyntaxNode; rest?: boolean };
  if (definition.type === 'Variable') return isVoid(definition.node.init);
  if (definition.type !== 'Parameter' || definition.rest) return false;
  const position = (definition.node.params as SyntaxNode[]).indexOf(definition.name);
  const args = shape.runWhereWritten.get(definition.node);
  if (position < 0 || args === undefined) return false;
  return (args.at[position] ?? args.rest) === 'undefined';
}
