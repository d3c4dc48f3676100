// Names and values a module's built code uses where the import runs that surely throw on a page,
// beyond Node's globals (README "Bundling real code", names nothing binds). esbuild writes an ES
// module, which is strict code, from sources often written as sloppy scripts: an implicit global
// (`cache = {}`), a function declared in a block and called outside it, `arguments` at the top level,
// and `this` at the top level, which esbuild writes as `void 0` since an ES module's is undefined;
// and from code written for another tool's page: a member of `import.meta.hot` or of
// `document.currentScript` (null in a module script), a read of `__DEV__` that tool's build defined.
// Each built, and `/state` called the module valid, while Chromium threw when it imported it.
//
// The verdict is that of the pages the service serves (the preview, core dist's index.html), where
// no script of the author's defines a name. A name a page may still define is never judged: one of
// Chromium's window (`onload = f`, `name = ...` set the global object's property), one starting
// with a capital (an interface: `window-names.ts`), one the code tests or writes on the global
// object; and when the module first imports another for its effects, which may define any name, a
// use is a warning, judged again across modules once those builds are known
// (src/workspace/shim-reads.ts). The scope analysis and the walk deciding what runs on import are
// those of the Node globals' judgement.
import type { Reference, Scope, Variable } from 'eslint-scope';
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import type { PlacedReads } from './placed-reads.js';
import { bufferView } from '../outputs/buffer-view.js';
import { analysedModule, isGlobalObject, isNode, keepsItsValue, memberKey, NODE_GLOBALS, readPlace, runsOnImport, type SyntaxNode, type TreeShape } from './free-globals.js';
import { WINDOW_NAMES } from './window-names.js';
import { unchangedReads } from '../regular-files.js';
import { effectsShimUseText } from '../workspace/shim-reads.js';
import { declarationFileGlobals } from './declared-globals.js';

/** A source written in JavaScript, where no checker looks at what a sloppy script allowed. */
const SCRIPT_SOURCE = /\.(?:[cm]?js|jsx)$/;

/** The names judged: those starting with a lowercase letter, `_` or `$` (see window-names.ts). */
const JUDGED = /^[a-z_$]/;

const STRICT = 'an ES module is strict code (esbuild writes one, whatever the source was written as)';

/** Names written as another bundler's build-time constants (`__DEV__`, `__APP_VERSION__`), which nothing here defines; not esbuild's annotation comments (`@__PURE__`). */
const BUILD_CONSTANT = /(?<![\w$@#])__[A-Z][A-Z0-9_]*__(?![\w$])/;

/** A source TypeScript compiles, which may declare a page's global for its checker alone. */
const TYPESCRIPT_SOURCE = /(?<!\.d)\.[cm]?tsx?$/;

/** TypeScript's declaration of a global for its checker alone, which esbuild erases: `declare function gtag(`, `declare const __APP__`, `declare global {`. */
const AMBIENT_DECLARATION = /(?<![\w$.])declare\s+(?:(?:function|const|let|var)\s+([\w$]+)|global\s*\{)/g;

/**
 * The errors and warnings of a browser build's code (README "Bundling real code"): where the import
 * runs, a write of a name nothing binds and Chromium's window lacks, a read of `arguments` outside
 * every function, a read of a name whose only function is declared in a block, a read of a name
 * nothing binds and no page the service serves defines (`__DEV__`, a warning where the read may not
 * run), and a member of a value surely `undefined` or `null` (`this` at the top level,
 * `import.meta.hot`, `document.currentScript`). `runsNoCode` tells a module imported for its effects
 * that runs no code (a stylesheet module of the workspace).
 */
export function unboundNameDiagnostics(reads: PlacedReads, built: Uint8Array, sources: readonly string[], entry: string, runsNoCode: (specifier: string) => boolean = () => false, jsxNames: ReadonlySet<string> = new Set()): { errors: Diagnostic[]; warnings: Diagnostic[] } {
  // A parse and scope analysis costs about a millisecond of CPU per kilobyte of code, on every
  // build and rebuild, so it is made only where these can be (README "Bundling real code"): the
  // sloppy script's habits and reads of a page's globals in a module written in JavaScript
  // (TypeScript's checker refuses the habits in a .ts source, and a global it reads or writes is
  // declared for the checker alone, in a source or in a .d.ts no build reads: a build-time
  // constant's name is looked for in the code instead, and a name a TypeScript source or a .d.ts
  // file its config includes declares so, which the code then names), and a member of `this`
  // where esbuild wrote a top-level one as `void 0`, of `import.meta.hot` or of
  // `document.currentScript` (also where `import.meta` is held, destructured or indexed, which
  // may reach `hot`).
  const bytes = bufferView(built);
  const scriptHabits = sources.some((file) => SCRIPT_SOURCE.test(file));
  const nullish = bytes.includes('void 0') || bytes.includes('import.meta.hot') || bytes.includes('currentScript') || reachesImportMeta(bytes);
  const text = scriptHabits || !bytes.includes('__') ? null : bytes.toString('utf8');
  const judgesReads = scriptHabits || (text !== null && BUILD_CONSTANT.test(text)) || readsDeclaredGlobal(bytes, reads, sources) || readsDeclarationFileGlobal(bytes, reads, sources, entry);
  if (!judgesReads && !nullish) return { errors: [], warnings: [] };
  const code = text ?? bytes.toString('utf8');
  const analysed = analysedModule(code);
  if (analysed === null || analysed.globalScope === null) return { errors: [], warnings: [] };
  const { globalScope, shape } = analysed;
  const place = (name: string, at: number) => readPlace(reads, code, sources, name, { onImport: true, inFunction: false, at }) ?? { file: entry };
  // A module imported first for its effects may write any name on the global object (a shim).
  const importedFirst = shape.importedForEffects.find((specifier) => !runsNoCode(specifier));
  const found = judgesReads ? unboundUses(globalScope.through, { shape, reads, sources, scriptHabits, importedFirst, jsxNames }) : { errors: [], warnings: [] };
  // A name is looked for as a pattern: `$` (jQuery's) written as itself.
  const errors = found.errors.map(({ why, name, at }) => diagnostic('BUNDLE_ERROR', why, place(name.replace(/\$/g, '\\$'), at)));
  const warnings = found.warnings.map(({ why, name, at }) => diagnostic('BUNDLE_WARNING', why, place(name.replace(/\$/g, '\\$'), at)));
  // The built code's names are neither quoted nor looked for in the sources: a minified build
  // renamed them. The place is where a source writes the value (`this`, `import.meta.hot`), in both variants alike.
  for (const member of nullishMembers(shape)) {
    (member.surely ? errors : warnings).push(diagnostic(member.surely ? 'BUNDLE_ERROR' : 'BUNDLE_WARNING', nullishMessage(member), place(NULLISH[member.value].written, member.at)));
  }
  return { errors, warnings };
}

interface FoundUse {
  why: string;
  name: string;
  at: number;
  /** Surely thrown where the import runs: an error; else a warning. */
  surely: boolean;
  onImport: boolean;
}

/**
 * The uses of names nothing binds that throw on the service's pages: where the import surely runs
 * one, an error (a warning when a module imported first for its effects may define the name); a
 * read that may not run then (in a function, a branch), a warning. One per name, the sure one first.
 */
function unboundUses(through: readonly Reference[], context: { shape: TreeShape; reads: PlacedReads; sources: readonly string[]; scriptHabits: boolean; importedFirst: string | undefined; jsxNames: ReadonlySet<string> }): { errors: FoundUse[]; warnings: FoundUse[] } {
  const { shape, reads, sources, scriptHabits, importedFirst, jsxNames } = context;
  const mayBeDefined = importedFirst !== undefined;
  const found = new Map<string, FoundUse>();
  for (const reference of through) {
    const identifier = reference.identifier as unknown as SyntaxNode;
    const name = identifier.name as string;
    const at = identifier.range![0];
    const told = found.get(name);
    // The JSX factory's names are told by the judgement of JSX, wherever they are read.
    if (told?.onImport === true || jsxNames.has(name) || !surelyUnbound(name, identifier, shape)) continue;
    const onImport = runsOnImport(reference.from, at, shape);
    if (onImport) {
      // A write throws in strict code whatever the source was written in: in TypeScript, of a name
      // declared for the checker alone (`declare let counter: number; counter = 1;`).
      const written = !reference.isRead();
      const why = (scriptHabits || written) && !mayBeDefined ? unboundUse(name, reference, shape, reads, sources) : null;
      if (why !== null) found.set(name, { why, name, at, surely: true, onImport });
      // Judged again across modules once the builds of those imported are known (src/workspace/shim-reads.ts).
      else if (mayBeDefined) found.set(name, { why: effectsShimUseText(name, written ? 'written' : 'read', importedFirst, written ? writeRemedy(name) : readRemedy(name)), name, at, surely: false, onImport });
      else if (!written) found.set(name, { why: unboundRead(name, true, false), name, at, surely: true, onImport });
    } else if (reference.isRead() && told === undefined) {
      found.set(name, { why: unboundRead(name, false, mayBeDefined), name, at, surely: false, onImport });
    }
  }
  const uses = [...found.values()];
  return { errors: uses.filter(({ surely }) => surely), warnings: uses.filter(({ surely }) => !surely) };
}

/** What a read of a name nothing binds throws on the service's pages, and what to write instead. */
function unboundRead(name: string, surely: boolean, mayBeDefined: boolean): string {
  const where = surely ? 'when the module is imported' : 'inside a function (or in a branch the import may not take)';
  const remedy = readRemedy(name);
  const throws = `"ReferenceError: ${name} is not defined"`;
  if (mayBeDefined) return `${name} is read ${where}, and nothing binds it: no page the service serves (the preview, core dist's index.html) defines it, but the module first imports another for its effects, which may write it on the global object (a shim), so it is taken as defined; the page throws ${throws} if none does; ${remedy}`;
  if (surely) return `${name} is read when the module is imported, and nothing binds it: no page the service serves (the preview, core dist's index.html) defines it, so the page throws ${throws}; ${remedy}`;
  return `${name} is read ${where}, and nothing binds it: no page the service serves (the preview, core dist's index.html) defines it, so that code throws ${throws} when it runs, unless it tests typeof ${name} first (a module that tests it is not told); ${remedy}`;
}

/** What to write in place of a read of a name nothing binds. */
function readRemedy(name: string): string {
  const constant = BUILD_CONSTANT.test(name) ? `, as another bundler's define would; or read import.meta.env.DEV (or import.meta.env.MODE), which every build here defines` : '';
  return `define it in "core.define" of the package's package.json ({"${name}": "..."}) to replace it at build time${constant}; or declare it in the module`;
}

const writeRemedy = (name: string): string => `declare it (let ${name} = ...), or write globalThis.${name} for a global`;

/**
 * Whether a TypeScript source declares a global for its checker alone (README "Bundling real
 * code"), and the code names it: a read the declaration let pass may throw on a page. Only then is
 * such a module's code parsed for reads of names nothing binds.
 */
function readsDeclaredGlobal(bytes: Buffer, reads: PlacedReads, sources: readonly string[]): boolean {
  for (const file of sources) {
    const absolute = TYPESCRIPT_SOURCE.test(file) ? reads.absolute(file) : null;
    const declared = absolute === null ? null : declaredGlobalsOf(absolute);
    if (declared?.some((name) => name === GLOBAL_BLOCK || bytes.includes(name))) return true;
  }
  return false;
}

/**
 * Whether a TypeScript module's code names a global a declaration file of its config declares
 * (`globals.d.ts`: `declare function gtag(...)`), which no build reads (src/bundlers/declared-globals.ts).
 */
function readsDeclarationFileGlobal(bytes: Buffer, reads: PlacedReads, sources: readonly string[], entry: string): boolean {
  const root = reads.absolute('.');
  if (root === null || !sources.some((file) => TYPESCRIPT_SOURCE.test(file))) return false;
  for (const name of declarationFileGlobals(root, entry)) if (JUDGED.test(name) && !WINDOW_NAMES.has(name) && bytes.includes(name)) return true;
  return false;
}

/** Stands for `declare global { ... }`, which names no one global. */
const GLOBAL_BLOCK = '';

/**
 * The globals a TypeScript source declares for its checker alone, read again only when it changed:
 * every build of a module asks, a stylesheet's edit's too, which reads no code (ARCHITECTURE.md "One stylesheet edit").
 */
const declaredGlobalsOf = unchangedReads((bytes): string[] => {
  const text = bytes.toString('utf8');
  return text.includes('declare') ? [...text.matchAll(AMBIENT_DECLARATION)].map(([, name]) => name ?? GLOBAL_BLOCK) : [];
});

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
    return `${name} is written when the module is imported, and nothing binds it (TypeScript's declare binds nothing: esbuild erases it): ${STRICT}, where a write of a name nothing binds throws "ReferenceError: ${name} is not defined" (a sloppy script made it a global); ${writeRemedy(name)}`;
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

/**
 * `import.meta` used otherwise than by the members a page defines (`import.meta.url`, `.resolve`)
 * or the build replaces and judges itself (`.env`, src/bundlers/vite-import-meta.ts):
 * held by a name (`const meta = import.meta`), destructured (`const { hot } = import.meta`) or
 * indexed (`import.meta['hot']`), each of which may reach `hot` without the text `import.meta.hot`.
 */
const IMPORT_META_REACHED = /import\.meta(?!\s*\.\s*(?:url|resolve|env)(?![\w$]))/;

const reachesImportMeta = (bytes: Buffer): boolean => bytes.includes('import.meta') && IMPORT_META_REACHED.test(bytes.toString('utf8'));

/**
 * The values surely nullish on a page whose members throw: how a source writes each (where it
 * reaches it: `import.meta` for `import.meta.hot`, `import.meta['hot']` and `const { hot } =
 * import.meta` alike), how a message names it, and what it holds.
 */
const NULLISH = {
  this: { written: 'this', named: 'this', holds: 'undefined' },
  hot: { written: 'import\\.meta(?!\\s*\\.\\s*(?:url|resolve|env)(?![\\w$]))', named: 'import.meta.hot', holds: 'undefined' },
  currentScript: { written: '(?:(?:(?:window|globalThis|self)\\s*\\.\\s*)?document\\.currentScript|currentScript)', named: 'document.currentScript', holds: 'null' },
} as const;

type NullishValue = keyof typeof NULLISH;

interface NullishMember {
  value: NullishValue;
  /** The member read or written, when named (`accept` of `import.meta.hot.accept()`). */
  key: string | null;
  written: boolean;
  /** Read by destructuring the value (`const { accept } = import.meta.hot`), not as its member. */
  destructured: boolean;
  at: number;
  /** Where the import surely runs it: an error; else (in a function, a branch) a warning. */
  surely: boolean;
}

/**
 * The members read or written of a value surely `undefined` or `null` (README "Bundling real
 * code"): `void 0` (esbuild's `this` at the top level), `import.meta.hot` (no browser and no build
 * here defines it), `document.currentScript` (`null` in a module script), a name declared once to
 * hold one and never written again (`var root = this`), and a parameter a function called where it
 * is written receives `void 0` for (`(function (root) { root.x = 1; })(this)`). An optional member
 * (`root?.x`) throws nothing. Where the import surely runs it, an error, one per value; else a
 * warning, for `import.meta.hot` and `document.currentScript` only and unless the code tests the
 * value (`if (import.meta.hot)`, `import.meta.hot?.accept()`): a top-level `this` held for a
 * function is its caller's to judge.
 */
function nullishMembers(shape: TreeShape): NullishMember[] {
  const found = new Map<NullishValue, NullishMember>();
  const tested = new Set<NullishValue>();
  const origin = heldOrigins(shape);
  const tell = (object: SyntaxNode, value: NullishValue, from: Scope) => {
    const use = shape.parents.get(object);
    const read = use === undefined ? null : memberRead(object, use, shape);
    if (read === null) {
      if (value !== 'this' && use !== undefined && testsValue(object, use)) tested.add(value);
      return;
    }
    const at = object.range![0];
    const surely = runsOnImport(from, at, shape);
    if (found.get(value)?.surely === true || (found.has(value) && !surely) || (!surely && value === 'this')) return;
    found.set(value, { value, ...read, at, surely });
  };
  for (const node of shape.parents.keys()) {
    const value = nullishValue(node, shape, origin);
    if (value !== null) tell(node, value, scopeOf(node, shape));
  }
  for (const scope of shape.scopes.scopes) {
    for (const reference of scope.references) {
      const value = reference.resolved === null ? null : heldNullish(reference.resolved, shape, origin);
      if (value !== null) tell(reference.identifier as unknown as SyntaxNode, value, reference.from);
    }
  }
  return [...found.values()].filter((member) => member.surely || !tested.has(member.value)).sort((a, b) => a.at - b.at);
}

/**
 * How a use of a value reads a member of it: `value.key` (read or written), or a destructuring of
 * it (`const { key } = value`, `({ key } = value)`, `const [a] = value`), which throws as well;
 * null for any other use (an optional member, a test, a call's argument).
 */
function memberRead(value: SyntaxNode, use: SyntaxNode, shape: TreeShape): Pick<NullishMember, 'key' | 'written' | 'destructured'> | null {
  if (use.type === 'MemberExpression') {
    if (use.object !== value || use.optional === true) return null;
    const parent = shape.parents.get(use);
    const written = (parent?.type === 'AssignmentExpression' && parent.left === use) || (parent?.type === 'UpdateExpression' && parent.argument === use);
    return { key: memberKey(use), written, destructured: false };
  }
  const pattern = (use.type === 'VariableDeclarator' && use.init === value ? use.id : use.type === 'AssignmentExpression' && use.right === value ? use.left : null) as SyntaxNode | null;
  if (pattern?.type !== 'ObjectPattern' && pattern?.type !== 'ArrayPattern') return null;
  const first = pattern.type === 'ObjectPattern' ? (pattern.properties as SyntaxNode[])[0] : undefined;
  return { key: first?.type === 'Property' ? memberKey(first) : null, written: false, destructured: true };
}

/**
 * What a name holds where it is declared once as a plain binding and never written again
 * (`const meta = import.meta`, `const doc = document`): its initializer; any other node is itself.
 */
function heldOrigins(shape: TreeShape): (node: SyntaxNode) => SyntaxNode {
  const resolved = new Map<SyntaxNode, Variable>();
  for (const scope of shape.scopes.scopes) {
    for (const reference of scope.references) if (reference.resolved !== null) resolved.set(reference.identifier as unknown as SyntaxNode, reference.resolved);
  }
  return (node) => {
    const variable = node.type === 'Identifier' ? resolved.get(node) : undefined;
    if (variable === undefined || !keepsItsValue(variable)) return node;
    const definition = variable.defs[0] as unknown as { type: string; node: SyntaxNode; name: SyntaxNode };
    return definition.type === 'Variable' && definition.node.id === definition.name && isNode(definition.node.init) ? definition.node.init : node;
  };
}

const isImportMeta = (node: SyntaxNode): boolean => node.type === 'MetaProperty' && (node.meta as SyntaxNode).name === 'import';

/** Whether a value's use tests it: a condition (`if (hot)`, `hot && ...`, `!hot`, `hot ? a : b`), a comparison, or an optional member. */
function testsValue(value: SyntaxNode, use: SyntaxNode): boolean {
  if (use.type === 'MemberExpression') return use.optional === true;
  if (use.type === 'IfStatement' || use.type === 'ConditionalExpression' || use.type === 'WhileStatement') return use.test === value;
  return use.type === 'LogicalExpression' || use.type === 'BinaryExpression' || (use.type === 'UnaryExpression' && use.operator === '!');
}

/**
 * Which surely nullish value a node is: `void 0`, `import.meta.hot` (`import.meta['hot']`, of a name
 * holding `import.meta`), `document.currentScript` of the global `document` (or of a name holding it).
 */
function nullishValue(node: SyntaxNode, shape: TreeShape, origin: (node: SyntaxNode) => SyntaxNode): NullishValue | null {
  if (isVoid(node)) return 'this';
  if (node.type !== 'MemberExpression' || node.optional === true) return null;
  return memberValue(memberKey(node), origin(node.object as SyntaxNode), shape);
}

/** Which surely nullish value member `key` of `object` is: `hot` of `import.meta`, `currentScript` of the global `document`. */
function memberValue(key: string | null, object: SyntaxNode, shape: TreeShape): NullishValue | null {
  if (key === 'hot' && isImportMeta(object)) return 'hot';
  if (key === 'currentScript' && globalDocument(object, shape)) return 'currentScript';
  return null;
}

/** The global `document`, named (`document`) or as a member of the global object (`window.document`, `globalThis.document`, `self.document`). */
function globalDocument(node: SyntaxNode, shape: TreeShape): boolean {
  if (node.type === 'Identifier') return node.name === 'document' && shape.freeIdentifiers.has(node);
  if (node.type !== 'MemberExpression' || node.optional === true || memberKey(node) !== 'document') return false;
  const object = node.object as SyntaxNode;
  return isGlobalObject(object) && shape.freeIdentifiers.has(object);
}

/** What a member of a surely nullish value throws, and what to write. */
function nullishMessage({ value, key, written, destructured, surely }: NullishMember): string {
  const { holds, named } = NULLISH[value];
  const thrown = destructured
    ? `TypeError: Cannot destructure ${key === null ? '' : `property '${key}' of `}${named} as it is ${holds}`
    : `TypeError: Cannot ${written ? 'set' : 'read'} properties of ${holds}${key === null ? '' : ` (${written ? 'setting' : 'reading'} '${key}')`}`;
  const done = `${written ? 'written' : 'read'} ${surely ? 'when the module is imported' : 'inside a function (or in a branch the import may not take)'}`;
  const throws = surely ? `so the page throws "${thrown}"` : `so that code throws "${thrown}" when it runs, unless it tests the value first (a module that tests it is not told)`;
  if (value === 'this') return `a member of this is ${done} (of this itself, or of a name or parameter holding it): \`this\` at the top level of an ES module is undefined (esbuild writes it as void 0), ${throws}; write globalThis (or window) where the code means the global object`;
  if (value === 'hot') return `a member of import.meta.hot is ${done} (of it, or of a name holding it): no browser defines import.meta.hot and the service has no hot module API (an edit of code reloads the page), so it is undefined, ${throws}; guard it as Vite's guide writes it, if (import.meta.hot) { ... }, or read import.meta.hot?.${key ?? 'accept'}(...)`;
  return `a member of document.currentScript is ${done} (of it, or of a name holding it): a module script has no current script (it is null while a module runs, set only for a classic script), ${throws}; read the module's own address as import.meta.url (new URL('.', import.meta.url) for its folder)`;
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

/**
 * Which surely nullish value a declaration gives `name`: its initializer's for a plain binding
 * (`const hot = import.meta.hot`); for a name destructured, the member it takes
 * (`const { hot } = import.meta`, `const { currentScript } = document`), not a member of that
 * member (`const { accept } = import.meta.hot` is told as a destructuring of the value itself).
 */
function declaredNullish(declarator: SyntaxNode, name: SyntaxNode, shape: TreeShape, origin: (node: SyntaxNode) => SyntaxNode): NullishValue | null {
  const init = declarator.init as SyntaxNode;
  if (declarator.id === name) return nullishValue(init, shape, origin);
  const pattern = declarator.id as SyntaxNode;
  if (pattern.type !== 'ObjectPattern') return null;
  const property = (pattern.properties as SyntaxNode[]).find((candidate) => candidate.type === 'Property' && candidate.value === name);
  return property === undefined ? null : memberValue(memberKey(property), origin(init), shape);
}

/** Which surely nullish value a variable holds: never written again, declared as one, or a parameter a call where its function is written leaves `void 0`. */
function heldNullish(variable: Variable, shape: TreeShape, origin: (node: SyntaxNode) => SyntaxNode): NullishValue | null {
  if (!keepsItsValue(variable)) return null;
  const definition = variable.defs[0] as unknown as { type: string; node: SyntaxNode; name: SyntaxNode; rest?: boolean };
  if (definition.type === 'Variable') return isNode(definition.node.init) ? declaredNullish(definition.node, definition.name, shape, origin) : null;
  if (definition.type !== 'Parameter' || definition.rest) return null;
  const position = (definition.node.params as SyntaxNode[]).indexOf(definition.name);
  const args = shape.runWhereWritten.get(definition.node);
  if (position < 0 || args === undefined) return null;
  return (args.at[position] ?? args.rest) === 'undefined' ? 'this' : null;
}
