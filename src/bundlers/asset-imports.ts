// What a declared JavaScript asset the code names by `new URL` (a worker, README "Bundling real
// code") loads in turn. An asset is served as written, so what it loads is the browser's to fetch:
// a sibling that is no declared asset answers 404, and a bare specifier has no import map in a
// worker; either way the worker fails while its module is `valid`. How the code starts the worker
// decides what it may write: a classic worker (no `{ type: 'module' }`) cannot hold `import`,
// `export` or `import.meta` (a SyntaxError), and a module worker cannot call `importScripts` (a
// TypeError). The service cannot mend any of it; it says so, as a warning (the page may never
// start the worker, and its module runs either way). The asset is parsed, never run; one that does
// not parse is not judged (the browser says why). Only the browser's constructors are judged: a
// `Worker` the code binds (an import, a parameter, `node:worker_threads`) is another's, and a module
// that runs on Node only has no page; an `importScripts` of a module worker is told only where it
// surely runs at the worker's start (scope analysis shared with the free-globals judgement).
import path from 'node:path';
import { parse } from 'acorn';
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import { lineAndColumn } from '../workspace/json.js';
import { isBare } from '../workspace/specifiers.js';
import { fileNameAddress } from '../workspace/paths.js';
import { urlAssets } from './plugins/assets.js';
import { firstWrittenPlace, type PlacedReads } from './placed-reads.js';
import { freeReferencePlaces, globalValuePlaces } from './free-globals.js';
import type { BundleTarget } from './types.js';
import { bufferView } from '../outputs/buffer-view.js';

// Stands for `/m/<package>@<version>/`: an asset's imports resolve against its address as the browser's do.
const ORIGIN = 'http://module.invalid';
const PACKAGE = '/m/package/';
const SCRIPT_ASSET = /\.m?js$/;
// What a module's code starting a worker holds, as esbuild prints it: `new Worker(`, `new SharedWorker(`,
// `new window.Worker(`, a name given `Worker` (`const W = Worker`), `navigator.serviceWorker`.
const STARTS_A_WORKER = [Buffer.from('Worker')];
// An address the author wrote for another origin or from the origin's root: not judged here.
const SCHEME_OR_ROOT = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|\/)/;

/**
 * How a script is run, which decides what it may write: `module` (a module worker, or a file a
 * module imports), `classic` (a worker started without `{ type: 'module' }`, or a file
 * `importScripts` loads), `unknown` (its address passed on in a way not followed here).
 */
export type ScriptKind = 'module' | 'classic' | 'unknown';

interface SyntaxNode {
  type: string;
  start: number;
  [key: string]: unknown;
}

/** A script to judge: a declared asset, how it is run, and why it is run so (for the messages). */
interface ScriptRun {
  file: string;
  kind: ScriptKind;
  how: string;
}

/** The declared assets a module's scripts may load, by workspace-relative path and by address. */
interface AssetSpace {
  target: BundleTarget;
  declared: Map<string, { subpath: string; file: string }>;
  byAddress: Map<string, string>;
  addressOf: (file: string) => string;
}

/**
 * The warnings about what each JavaScript asset in `named` (workspace-relative, the declared assets
 * the code names) loads, and each declared asset those load in turn; `code`: the module's code as
 * served (its asset addresses placed), read for how it starts each worker (`workerStarts`), and
 * for a worker started from a plain string (`workersFromPage`), placed in `sources`; `scanned`:
 * every asset read, inputs of the build, so that an edit of one judges them again.
 */
export function assetImportWarnings(
  reads: PlacedReads,
  target: BundleTarget,
  named: readonly string[],
  code: Uint8Array | null = null,
  sources: readonly string[] = [],
): { warnings: Diagnostic[]; scanned: string[] } {
  const declared = urlAssets(target);
  const addressOf = (file: string): string => {
    const asset = declared.get(file)!;
    return new URL(`${PACKAGE}assets/${asset.subpath}/${fileNameAddress(asset.file)}`, ORIGIN).pathname;
  };
  const space: AssetSpace = { target, declared, byAddress: new Map([...declared.keys()].map((file) => [addressOf(file), file])), addressOf };
  const isScript = (file: string) => SCRIPT_ASSET.test(file) && declared.has(file);
  // The code is parsed only where it names a script asset or may start a worker.
  const bytes = code === null ? null : bufferView(code);
  const codeText = bytes !== null && (named.some(isScript) || STARTS_A_WORKER.some((word) => bytes.indexOf(word) !== -1)) ? bytes.toString('utf8') : null;
  const tree = codeText === null ? null : parsedModule(codeText);
  const isBrowserConstructor: BrowserConstructorOf = tree === null ? () => null : browserConstructors(codeText!);
  const starts = tree === null ? new Map<string, Set<ScriptKind>>() : workerStarts(tree, target, space.byAddress, isBrowserConstructor);
  // Those the code names by an address written as such too, which `named` lacks where no version is given (production).
  const scripts = [...new Set([...named, ...starts.keys()])].filter(isScript);
  // A module that runs on Node only is started by no page: a relative string is Node's to resolve.
  const warnings: Diagnostic[] = tree === null || !target.platforms.includes('web') ? [] : workersFromPage(tree, target, reads, sources, isBrowserConstructor);
  const pending: ScriptRun[] = [];
  const queued = new Set<string>();
  const enqueue = (run: ScriptRun) => {
    if (queued.has(`${run.kind}\0${run.file}`)) return;
    queued.add(`${run.kind}\0${run.file}`);
    pending.push(run);
  };
  for (const file of scripts) for (const kind of starts.get(file) ?? ['unknown' as const]) enqueue({ file, kind, how: started(kind) });
  // A script run two ways has its loads judged once.
  const said = new Set<string>();
  const scanned = new Set<string>();
  while (pending.length > 0) {
    const run = pending.shift()!;
    scanned.add(run.file);
    const text = reads.text(run.file);
    const judged = text === null ? null : judgedScript(run, text, space);
    if (judged === null) continue;
    judged.next.forEach(enqueue);
    for (const found of judged.found) {
      const key = `${found.kind}\0${found.file}\0${found.line}\0${found.column}`;
      if (said.has(key)) continue;
      said.add(key);
      warnings.push(found);
    }
  }
  return { warnings, scanned: [...scanned].sort() };
}

/**
 * What a script run as `run.kind` loads that the browser cannot, and what it is run as writes that
 * its kind cannot hold; `next`: the declared scripts it loads, each with how it runs them. Null
 * when the text parses neither as a module nor as a classic script (the browser says why).
 */
function judgedScript({ file, kind, how }: ScriptRun, text: string, space: AssetSpace): { found: Diagnostic[]; next: ScriptRun[] } | null {
  const loads = scriptLoads(text);
  if (loads === null) return null;
  const { target, byAddress } = space;
  const found: Diagnostic[] = [];
  const next: ScriptRun[] = [];
  const address = new URL(space.addressOf(file), ORIGIN);
  const at = (offset: number) => ({ file, ...lineAndColumn(text, offset) });
  // The asset space of the module declaring it: a relative load that stays there names a file
  // that only a declaration of that module could serve.
  const ownSpace = new URL(`${PACKAGE}assets/${space.declared.get(file)!.subpath}/`, ORIGIN).pathname;
  const undeclared = (specifier: string, resolved: string): string | null => {
    if (!resolved.startsWith(ownSpace)) return null; // another module's assets, or out of them: not known here
    return path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier.replace(/[?#].*$/, '')));
  };
  const remedy = (wanted: string) => `declare "${path.posix.relative(target.dir, wanted)}" under "assets" too`;
  if (kind === 'classic' && loads.moduleSyntax !== null) {
    found.push(diagnostic('WORKER_TYPE_MISMATCH', `${file} is run as a classic script (${how}), and writes ${loads.moduleSyntax.what}, which a classic script cannot hold: the browser throws a SyntaxError and the script never runs; start the worker with { type: 'module' }, or load what it needs by importScripts`, at(loads.moduleSyntax.offset)));
  }
  const importScriptsCall = kind === 'module' ? importScriptsAtStart(text, loads.tree) : null;
  if (importScriptsCall !== null) {
    found.push(diagnostic('WORKER_TYPE_MISMATCH', `${file} is run as a module (${how}), and calls importScripts() where the worker starts, which a module worker does not have: the browser throws a TypeError there and the worker stops; import what it needs (import './x.js'), or start the worker without { type: 'module' }`, at(importScriptsCall)));
  }
  // Imports, static (where a module runs them) or by import() of a literal (any script).
  const imports = [...(kind === 'classic' ? [] : loads.staticImports.map((load) => ({ ...load, dynamic: false }))), ...loads.dynamicImports.map((load) => ({ ...load, dynamic: true }))];
  for (const { specifier, offset, dynamic } of imports) {
    const written = dynamic ? `import("${specifier}")` : `imports "${specifier}"`;
    const fails = dynamic ? 'the import() rejects' : 'the worker fails to start';
    if (isBare(specifier)) {
      // A module that runs on Node only is started by no page: Node resolves the bare import
      // from the asset's folder as it resolves any (README "Bundling real code").
      if (!target.platforms.includes('web')) continue;
      found.push(diagnostic('ASSET_IMPORT_UNSERVED', `${file} is a declared asset, served as written, and ${dynamic ? `calls ${written} with` : `${written} by`} a bare specifier: a worker has no import map, so the browser cannot load it and ${fails}; import a declared asset by a relative address instead (an asset is never bundled)`, at(offset)));
      continue;
    }
    if (!/^\.\.?\//.test(specifier)) continue; // from the origin's root or with a scheme: the author's
    const resolved = new URL(specifier, address).pathname;
    const served = byAddress.get(resolved);
    if (served !== undefined) {
      if (SCRIPT_ASSET.test(served)) next.push({ file: served, kind: 'module', how: `${file} imports it` });
      continue;
    }
    const wanted = undeclared(specifier, resolved);
    if (wanted !== null) found.push(diagnostic('ASSET_IMPORT_UNSERVED', `${file} is a declared asset, served as written, and ${dynamic ? 'calls ' : ''}${written} (${wanted}), which is no declared asset of ${target.specifier}: its address answers 404, so ${fails}; ${remedy(wanted)}`, at(offset)));
  }
  // importScripts takes addresses, not specifiers: any name without a scheme is beside the asset.
  if (kind === 'module') return { found, next };
  for (const { specifier, offset } of loads.importScripts) {
    if (SCHEME_OR_ROOT.test(specifier) || specifier === '') continue;
    const resolved = new URL(specifier, address).pathname;
    const served = byAddress.get(resolved);
    if (served !== undefined) {
      if (SCRIPT_ASSET.test(served)) next.push({ file: served, kind: 'classic', how: `${file} loads it by importScripts` });
      continue;
    }
    const wanted = undeclared(specifier, resolved);
    if (wanted === null) continue;
    const asAddress = isBare(specifier) && !SCRIPT_ASSET.test(specifier) ? ` (importScripts takes an address, not a package name: "${specifier}" names a file beside the asset)` : '';
    found.push(diagnostic('ASSET_IMPORT_UNSERVED', `${file} is a declared asset, served as written, and calls importScripts("${specifier}")${asAddress}, which loads ${wanted}, no declared asset of ${target.specifier}: its address answers 404, so importScripts throws a NetworkError and the worker stops there; ${remedy(wanted)}`, at(offset)));
  }
  return { found, next };
}

const started = (kind: ScriptKind): string =>
  kind === 'classic' ? "the module's code starts it without { type: 'module' }" : kind === 'module' ? "the module's code starts it with { type: 'module' }" : "the module's code names it by new URL";

function parsedModule(code: string): SyntaxNode | null {
  try {
    return parse(code, { ecmaVersion: 'latest', sourceType: 'module' }) as unknown as SyntaxNode;
  } catch {
    return null;
  }
}

const isNode = (value: unknown): value is SyntaxNode => typeof value === 'object' && value !== null && typeof (value as SyntaxNode).type === 'string';

/** Each node of `tree`, parents before their children. */
function eachNode(tree: SyntaxNode, visit: (node: SyntaxNode) => void): void {
  const stack: SyntaxNode[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop()!;
    visit(node);
    const children: SyntaxNode[] = [];
    for (const [key, value] of Object.entries(node)) {
      if (key === 'type' || key === 'start' || key === 'end') continue;
      for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) children.push(child);
    }
    for (let index = children.length - 1; index >= 0; index--) stack.push(children[index]!);
  }
}

/** The text of a string literal or of a template without substitutions; null for anything else. */
function literalText(node: unknown): string | null {
  if (!isNode(node)) return null;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && (node.expressions as unknown[]).length === 0) {
    const cooked = ((node.quasis as { value: { cooked: string | null } }[])[0])?.value.cooked;
    return typeof cooked === 'string' ? cooked : null;
  }
  return null;
}

const isIdentifier = (node: unknown, name: string): boolean => isNode(node) && node.type === 'Identifier' && node.name === name;
const isMember = (node: unknown, name: string): node is SyntaxNode =>
  isNode(node) && node.type === 'MemberExpression' && !node.computed && isIdentifier(node.property, name);

/** `new URL('<reference>', import.meta.url)`: its reference; null for anything else. */
function moduleUrlReference(node: unknown): string | null {
  if (!isNode(node) || node.type !== 'NewExpression' || !isIdentifier(node.callee, 'URL')) return null;
  const [reference, base] = node.arguments as unknown[];
  const isImportMetaUrl = isMember(base, 'url') && isNode(base.object) && base.object.type === 'MetaProperty';
  return isImportMetaUrl ? literalText(reference) : null;
}

/** The browser's worker constructor a callee is: its name, and the callee as the code writes it (`Worker`, `window.Worker`, `W`). */
interface BrowserConstructor {
  name: string;
  written: string;
}

type BrowserConstructorOf = (callee: unknown) => BrowserConstructor | null;

/**
 * Which callees are the browser's `Worker` or `SharedWorker`, by scope analysis of the code
 * (`text`, whose tree's offsets are the same): the global's name, a member of the global object
 * (`window.Worker`, `globalThis.Worker`, `self.Worker`) and a name declared to hold one (`const W =
 * Worker`) are; a name the code binds otherwise (imported, a parameter, a local class) is not
 * (README "Bundling real code"). Code scope analysis cannot read is taken as written.
 */
function browserConstructors(text: string): BrowserConstructorOf {
  const places = globalValuePlaces(text, ['Worker', 'SharedWorker']);
  const named = places === null ? null : new Map(places.map(({ name, start, end }) => [`${start}:${end}`, name]));
  return (callee) => {
    if (!isNode(callee)) return null;
    const name = named === null ? (isIdentifier(callee, 'Worker') || isIdentifier(callee, 'SharedWorker') ? (callee.name as string) : undefined) : named.get(`${callee.start}:${callee.end}`);
    return name === undefined ? null : { name, written: text.slice(callee.start as number, callee.end as number) };
  };
}

/** A worker's constructor (`new Worker(...)`, `new SharedWorker(...)`, the browser's) or `navigator.serviceWorker.register(...)`: its arguments. */
function workerStartArguments(node: SyntaxNode, isBrowserConstructor: BrowserConstructorOf): unknown[] | null {
  if (node.type === 'NewExpression' && isBrowserConstructor(node.callee) !== null) return node.arguments as unknown[];
  if (node.type === 'CallExpression' && isMember(node.callee, 'register') && isMember(node.callee.object, 'serviceWorker')) return node.arguments as unknown[];
  return null;
}

/** The kind an options argument asks for: none, or an object without `type`, is classic (as is a SharedWorker's name). */
function startedKind(options: unknown): ScriptKind {
  if (options === undefined || literalText(options) !== null) return 'classic';
  if (!isNode(options) || options.type !== 'ObjectExpression') return 'unknown';
  let kind: ScriptKind = 'classic';
  for (const property of options.properties as SyntaxNode[]) {
    if (property.type !== 'Property') return 'unknown'; // a spread may hold `type`
    const key = property.computed ? null : isNode(property.key) && property.key.type === 'Identifier' ? (property.key.name as string) : literalText(property.key);
    if (key === null) return 'unknown';
    if (key !== 'type') continue;
    const value = literalText(property.value);
    kind = value === 'module' ? 'module' : value === 'classic' ? 'classic' : 'unknown';
  }
  return kind;
}

/**
 * How the module's code (as served, its asset addresses placed) starts each declared asset it
 * names: a worker's constructor or `navigator.serviceWorker.register` given `new URL(<asset>,
 * import.meta.url)` (or its `.href`) directly, with its options; a `new URL` of the asset anywhere
 * else (a constructor the code binds among them) is passed on in a way not followed (`unknown`).
 * Keyed by workspace-relative path.
 */
export function workerStarts(tree: SyntaxNode, target: BundleTarget, byAddress: ReadonlyMap<string, string>, isBrowserConstructor: BrowserConstructorOf): Map<string, Set<ScriptKind>> {
  const codeAddress = new URL(`${PACKAGE}modules/${target.subpath}`, ORIGIN);
  const fileOf = (reference: string): string | undefined => {
    try {
      return byAddress.get(new URL(reference, codeAddress).pathname);
    } catch {
      return undefined;
    }
  };
  const starts = new Map<string, Set<ScriptKind>>();
  const add = (file: string, kind: ScriptKind) => {
    const kinds = starts.get(file) ?? new Set<ScriptKind>();
    kinds.add(kind);
    starts.set(file, kinds);
  };
  const followed = new Set<SyntaxNode>();
  eachNode(tree, (node) => {
    const args = workerStartArguments(node, isBrowserConstructor);
    if (args !== null) {
      const [address, options] = args;
      const url = isMember(address, 'href') ? address.object : address;
      const reference = moduleUrlReference(url);
      const file = reference === null ? undefined : fileOf(reference);
      if (file !== undefined) {
        followed.add(url as SyntaxNode);
        add(file, startedKind(options));
      }
      return;
    }
    if (followed.has(node)) return;
    const reference = moduleUrlReference(node);
    const file = reference === null ? undefined : fileOf(reference);
    if (file !== undefined) add(file, 'unknown');
  });
  return starts;
}

/**
 * `new Worker('<relative>')` and `new SharedWorker('<relative>')`: a plain string resolves against
 * the page's address, not the module's (README "Bundling real code"): on the service's preview
 * pages `/preview/<name>`, where nothing is served, and from another page wherever that page is.
 * A warning at the constructor in the module's sources: the page may serve the file itself.
 */
function workersFromPage(tree: SyntaxNode, target: BundleTarget, reads: PlacedReads, sources: readonly string[], isBrowserConstructor: BrowserConstructorOf): Diagnostic[] {
  const found: Diagnostic[] = [];
  const seen = new Set<string>();
  eachNode(tree, (node) => {
    const browserConstructor = node.type === 'NewExpression' ? isBrowserConstructor(node.callee) : null;
    if (browserConstructor === null) return;
    const reference = literalText((node.arguments as unknown[])[0]);
    if (reference === null || reference === '' || SCHEME_OR_ROOT.test(reference) || reference.startsWith('#')) return;
    if (seen.has(`${browserConstructor.written}\0${reference}`)) return;
    seen.add(`${browserConstructor.written}\0${reference}`);
    const place = constructorPlace(reads, sources, browserConstructor.written, reference);
    // A name the minifier gave (`const W = Worker` printed as `e`) is in no source: the global's is said.
    const constructor = place === null ? browserConstructor.name : browserConstructor.written;
    const source = place?.file ?? target.entry;
    const beside = path.posix.normalize(path.posix.join(path.posix.dirname(source), reference.replace(/[?#].*$/, '')));
    found.push(diagnostic('WORKER_ADDRESS_FROM_PAGE', `new ${constructor}('${reference}') resolves "${reference}" against the page's address, not the module's: on the service's preview pages it is ${new URL(reference, 'http://h/preview/').pathname} and ${new URL(reference, 'http://h/preview/bundled/').pathname}, where nothing is served (the worker fires "error"), and from another page wherever that page is. For the file beside the source (${beside}), declare it under "assets" in the module.json beside the module's entry and write new ${constructor}(new URL('${reference}', import.meta.url))`, place ?? { file: target.entry }));
  });
  return found;
}

/** Where a source writes `new <constructor>('<reference>'`: the first found, at its `new`. */
function constructorPlace(reads: PlacedReads, sources: readonly string[], constructor: string, reference: string): { file: string; line: number; column: number } | null {
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return firstWrittenPlace(reads, sources, new RegExp(`new\\s+${escaped(constructor)}\\(\\s*(['"\`])${escaped(reference)}\\1`));
}

interface Load {
  specifier: string;
  offset: number;
}

/**
 * What a script loads, with where each is written: static imports (`import ... from`, `export ...
 * from`, `import '...'`), `import()` of a literal, the literal arguments of `importScripts`; where
 * it first writes what only a module may (`import`, `export`, `import.meta`); its tree. Parsed as
 * a module, else as a classic script; null when neither parses.
 */
function scriptLoads(text: string): { staticImports: Load[]; dynamicImports: Load[]; importScripts: Load[]; moduleSyntax: { what: string; offset: number } | null; tree: SyntaxNode } | null {
  let tree: SyntaxNode;
  try {
    tree = parse(text, { ecmaVersion: 'latest', sourceType: 'module' }) as unknown as SyntaxNode;
  } catch {
    try {
      tree = parse(text, { ecmaVersion: 'latest', sourceType: 'script' }) as unknown as SyntaxNode;
    } catch {
      return null;
    }
  }
  const staticImports: Load[] = [];
  const dynamicImports: Load[] = [];
  const importScripts: Load[] = [];
  let moduleSyntax: { what: string; offset: number } | null = null;
  const moduleOnly = (what: string, offset: number) => {
    if (moduleSyntax === null || offset < moduleSyntax.offset) moduleSyntax = { what, offset };
  };
  eachNode(tree, (node) => {
    switch (node.type) {
      case 'ImportDeclaration':
      case 'ExportNamedDeclaration':
      case 'ExportAllDeclaration':
      case 'ExportDefaultDeclaration': {
        moduleOnly(node.type === 'ImportDeclaration' ? 'a static import' : 'an export', node.start);
        const source = node.source as { value: unknown; start: number } | null | undefined;
        if (source && typeof source.value === 'string') staticImports.push({ specifier: source.value, offset: source.start });
        break;
      }
      case 'MetaProperty':
        if (isIdentifier(node.meta, 'import')) moduleOnly('import.meta', node.start);
        break;
      case 'ImportExpression': {
        const specifier = literalText(node.source);
        if (specifier !== null) dynamicImports.push({ specifier, offset: (node.source as SyntaxNode).start });
        break;
      }
      case 'CallExpression': {
        if (importScriptsName(node) === null) break;
        for (const argument of node.arguments as SyntaxNode[]) {
          const specifier = literalText(argument);
          if (specifier !== null) importScripts.push({ specifier, offset: argument.start });
        }
        break;
      }
    }
  });
  staticImports.sort((a, b) => a.offset - b.offset);
  return { staticImports, dynamicImports, importScripts, moduleSyntax, tree };
}

/** The name a call of `importScripts` is made through (`importScripts(...)`, or the `self` or `globalThis` of `self.importScripts(...)`); null for another call. */
function importScriptsName(call: SyntaxNode): SyntaxNode | null {
  const callee = call.callee;
  if (isIdentifier(callee, 'importScripts')) return callee as SyntaxNode;
  return isMember(callee, 'importScripts') && (isIdentifier(callee.object, 'self') || isIdentifier(callee.object, 'globalThis')) ? (callee.object as SyntaxNode) : null;
}

/**
 * Where a module's script (`text`, parsed as `tree`) first calls the global `importScripts` where
 * it surely runs when the worker starts (README "Bundling real code"): at the top level or in a
 * function called there, in no `try`, no branch (a feature test: `if (typeof WorkerGlobalScope ===
 * 'undefined') importScripts(...)`); not a function the worker never calls on its start (an
 * export, a message handler), nor a name it binds. Null when there is none, or the text is no
 * module scope analysis reads (the browser's SyntaxError is said by nobody here).
 */
function importScriptsAtStart(text: string, tree: SyntaxNode): number | null {
  const free = freeReferencePlaces(text, ['importScripts', 'self', 'globalThis']);
  if (free === null) return null;
  const surely = new Set(free.filter(({ surelyRuns }) => surelyRuns).map(({ start }) => start));
  let first: number | null = null;
  eachNode(tree, (node) => {
    if (node.type !== 'CallExpression') return;
    const name = importScriptsName(node);
    if (name !== null && surely.has(name.start) && (first === null || node.start < first)) first = node.start;
  });
  return first;
}
