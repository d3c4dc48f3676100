// What a browser build's code may write on the global object where its import runs, and which
// modules it imports for their effects (README "Bundling real code", Shims): the facts by which a
// module importing it for its effects is judged (src/workspace/shim-reads.ts), recorded with the
// build. The scope analysis and the shim rules are those of free-globals.ts.
import { bufferView } from '../outputs/buffer-view.js';
import type { ShimFacts } from '../workspace/shim-reads.js';
import { analysedModule, isGlobalObject, mayRunOnImport, memberKey, NODE_GLOBALS, type SyntaxNode, type TreeShape } from './free-globals.js';

/** An import for effects as esbuild writes it (`import "x";`, minified `import"x";`): only then is the list of such imports made. */
const EFFECTS_IMPORT = /(?<![\w$.])import\s*["']/;

/** The facts of most modules, one object for all: they write none of Node's globals and import nothing for its effects. */
const NO_SHIMS: ShimFacts = { writes: [], effects: [], others: [] };

/**
 * Where code may write a member of the global object: the object named other than to call its
 * method or read a member's member (`window.addEventListener(...)`, `window.location.href`), or
 * `Function` or `eval` named (either gives it). Code with none writes no other name.
 */
const MAY_WRITE_GLOBAL = /(?<![\w$.])(?:(?:globalThis|window|self)(?![\w$])(?!\s*\.\s*[\w$]+\s*[.(])|(?:Function|eval)(?![\w$]))/;
const GLOBAL_WORDS = ['globalThis', 'window', 'self', 'Function', 'eval'];

/** Calls that write on their first argument by the keys they name. */
const OBJECT_WRITES = new Set(['assign', 'defineProperty', 'defineProperties']);

/**
 * The shim facts of a build's code; undefined when they cannot be told (the code does not parse).
 * A code that names none of Node's globals as a word writes none of them, and one with no import
 * for effects imports none: neither is parsed for that (a parse costs about a millisecond per
 * kilobyte, on every build). `runsNoCode` tells a module imported that runs no code.
 */
export function shimFacts(built: Uint8Array, runsNoCode: (specifier: string) => boolean): ShimFacts | undefined {
  const bytes = bufferView(built);
  const present = Object.keys(NODE_GLOBALS).filter((name) => bytes.includes(name));
  if (present.length === 0 && !bytes.includes('import') && !GLOBAL_WORDS.some((word) => bytes.includes(word))) return NO_SHIMS;
  const code = bytes.toString('utf8');
  const named = present.filter((name) => new RegExp(`(?<![\\w$])${name}(?![\\w$])`).test(code));
  if (named.length === 0 && !EFFECTS_IMPORT.test(code) && !MAY_WRITE_GLOBAL.test(code)) return NO_SHIMS;
  const analysed = analysedModule(code);
  if (analysed === null) return undefined;
  const { shape } = analysed;
  const effects = shape.importedForEffects.filter((specifier) => !runsNoCode(specifier));
  // A member of the global object written by a key not named, or the object handed to other code:
  // any name the code holds may be written.
  const anyName = writesUnnamed(shape);
  const written = (name: string) => (shape.definedOnGlobal.get(name) ?? []).some((write) => mayRunOnImport(write, shape));
  const writes = named.filter((name) => anyName || written(name));
  // The other names an importer's use may need (`cache`, `gtag`): every one it writes, or any.
  const others = anyName ? null : [...shape.definedOnGlobal.keys()].filter((name) => !Object.hasOwn(NODE_GLOBALS, name) && written(name)).sort();
  return { writes: writes.sort(), effects, others };
}

/**
 * Whether the code may write a member of the global object whose key the shim rules do not name:
 * `globalThis[key] = ...`, `Object.assign(globalThis, shims)`, the global object held in a name
 * or handed to a call (`const g = globalThis`, `install(window)`), or `Function` or `eval`
 * called (`Function('return this')()` gives it).
 */
function writesUnnamed(shape: TreeShape): boolean {
  for (const identifier of shape.freeIdentifiers) {
    const name = identifier.name as string;
    if (name === 'Function' || name === 'eval') return true;
    if (!isGlobalObject(identifier)) continue;
    const parent = shape.parents.get(identifier);
    if (parent?.type === 'UnaryExpression' && parent.operator === 'typeof') continue;
    if (parent?.type === 'MemberExpression' && parent.object === identifier) {
      const assigned = shape.parents.get(parent);
      if (memberKey(parent) === null && assigned?.type === 'AssignmentExpression' && assigned.left === parent) return true;
      continue;
    }
    if (parent?.type === 'CallExpression' && (parent.arguments as SyntaxNode[])[0] === identifier && namedObjectWrite(parent)) continue;
    return true;
  }
  return false;
}

/** `Object.assign(g, { a })`, `Object.defineProperty(g, 'a', ...)`, `Object.defineProperties(g, { a })`: every key named. */
function namedObjectWrite(call: SyntaxNode): boolean {
  const callee = call.callee as SyntaxNode;
  const method = callee.type === 'MemberExpression' && (callee.object as SyntaxNode).type === 'Identifier' && (callee.object as SyntaxNode).name === 'Object' ? memberKey(callee) : null;
  if (method === null || !OBJECT_WRITES.has(method)) return false;
  const rest = (call.arguments as SyntaxNode[]).slice(1);
  if (method === 'defineProperty') return rest[0]?.type === 'Literal' && typeof rest[0].value === 'string';
  const sources = method === 'defineProperties' ? rest.slice(0, 1) : rest;
  return sources.every((source) => source.type === 'ObjectExpression' && (source.properties as SyntaxNode[]).every((property) => property.type === 'Property' && memberKey(property) !== null));
}
