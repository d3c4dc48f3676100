// The names a built module links by, and their judgement across modules (README "Bundling real
// code"): a browser links every static import of a page before running any of it, so a name one
// public module imports and the other does not export fails the whole page.
import type { ImportRecord } from './checks.js';
import { diagnostic, type Diagnostic } from './diagnostics.js';
import { isBare, parseBareSpecifier } from './specifiers.js';
import { isSharedSubpath, SHARED_SEGMENT } from './shared-files.js';

/** What a module's built code imports from other modules by bare specifier, and what it exports. */
export interface LinkNames {
  /** The names the output exports itself (esbuild's metafile), sorted. */
  exports: string[];
  /** Bare specifiers the output re-exports whole (`export * from "x"`), in order written. */
  stars?: string[];
  /** Names the output imports from each bare specifier (`default` for a default import); a namespace or bare import adds none. */
  imports?: { specifier: string; names: string[] }[];
  /**
   * Its exports that are bindings it imports (esbuild writes `export { a } from "x"` as an import
   * and a local export): a browser resolves each to the other module's binding, so two whole
   * re-exports reaching one of them are not ambiguous.
   */
  reexports?: { name: string; specifier: string; imported: string }[];
  /**
   * Its exports that are the namespace of another module (`export * as ns from "x"`, which
   * esbuild writes as `import * as ns from "x"; export { ns }`): one binding however many modules
   * export it, so two whole re-exports reaching it are not ambiguous either.
   */
  namespaces?: { name: string; specifier: string }[];
}

/**
 * The static imports and whole re-exports of esbuild's output (development and minified forms
 * alike: `import{a as b}from"x"`), wherever esbuild put them: each bundled file's own imports stay
 * where its code is. Read by tokens (strings, template literals, regular expressions and comments
 * skipped), a declaration only where a statement starts, so no text of the code is taken for one.
 * null when a declaration is not of esbuild's form (then nothing is judged).
 */
export function scanLinkNames(code: string, exports: readonly string[]): LinkNames | null {
  const tokens = new Tokens(code);
  const imports = new Map<string, Set<string>>();
  const stars: string[] = [];
  const bindings = new Map<string, { specifier: string; imported: string }>();
  const reexports: NonNullable<LinkNames['reexports']> = [];
  const namespaceBindings = new Map<string, string>();
  const namespaces: NonNullable<LinkNames['namespaces']> = [];
  const want = (specifier: string) => {
    let names = imports.get(specifier);
    if (!names) imports.set(specifier, (names = new Set()));
    return names;
  };
  for (let previous: string | null = null, token = tokens.next(); token !== null; previous = token, token = tokens.next()) {
    if ((token !== 'import' && token !== 'export') || !startsStatement(previous)) continue;
    const found = token === 'import' ? importDeclaration(tokens) : exportDeclaration(tokens);
    if (found === null) return null;
    if (found === 'other' || found === 'attributed') continue;
    if ('own' in found) {
      for (const { name: local, alias } of found.own) {
        const binding = bindings.get(local);
        if (binding) reexports.push({ name: alias, ...binding });
        const namespace = namespaceBindings.get(local);
        if (namespace !== undefined) namespaces.push({ name: alias, specifier: namespace });
      }
      continue;
    }
    if (!isBare(found.specifier)) continue;
    if (found.star) stars.push(found.specifier);
    if (found.namespace !== undefined) namespaceBindings.set(found.namespace, found.specifier);
    if (found.namespaceExport !== undefined) namespaces.push({ name: found.namespaceExport, specifier: found.specifier });
    for (const { name, alias } of found.locals ?? []) bindings.set(alias, { specifier: found.specifier, imported: name });
    const wanted = want(found.specifier);
    for (const name of found.names) wanted.add(name);
    token = ';';
  }
  const links: LinkNames = { exports: [...exports].sort() };
  if (stars.length > 0) links.stars = stars;
  const named = [...imports].filter(([, names]) => names.size > 0).map(([specifier, names]) => ({ specifier, names: [...names].sort() }));
  if (named.length > 0) links.imports = named;
  if (reexports.length > 0) links.reexports = reexports;
  if (namespaces.length > 0) links.namespaces = namespaces;
  return links;
}

/**
 * A declaration read: its specifier and the names it asks for; `star`: a whole re-export;
 * `locals`: the bindings an import declares; `namespace`: the binding `import * as` declares;
 * `namespaceExport`: the name `export * as` exports.
 */
interface Declaration {
  specifier: string;
  names: string[];
  star?: true;
  locals?: Pair[];
  namespace?: string;
  namespaceExport?: string;
}

/** One entry of a `{ ... }` list: the name before `as`, and the one after (the same without `as`). */
interface Pair {
  name: string;
  alias: string;
}

/** After a statement's end, a block's or at the start: where esbuild starts an `import` or `export` declaration. */
const startsStatement = (previous: string | null): boolean => previous === null || previous === ';' || previous === '}';

/** After `import`: a declaration, `other` for `import(` and `import.meta`, null when not of esbuild's form. */
function importDeclaration(tokens: Tokens): Declaration | 'other' | 'attributed' | null {
  const next = tokens.peek();
  if (next === '(' || next === '.') return 'other';
  const locals: Pair[] = [];
  let namespace: string | undefined;
  if (!isString(next)) {
    // A default import (`import from from "x"` too: one named `from`).
    if (next !== null && isIdentifier(next)) {
      tokens.next();
      locals.push({ name: 'default', alias: next });
      if (tokens.peek() === ',') tokens.next();
      else if (tokens.peek() !== 'from') return null;
    }
    const clause = tokens.peek();
    if (clause === '*') {
      tokens.next();
      if (tokens.next() !== 'as') return null;
      const local = tokens.next();
      if (!isIdentifierToken(local)) return null;
      namespace = local;
    } else if (clause === '{') {
      tokens.next();
      const listed = namedList(tokens);
      if (listed === null) return null;
      locals.push(...listed);
    } else if (locals.length === 0) return null;
    if (tokens.next() !== 'from') return null;
  }
  const found = fromSpecifier(tokens, locals.map(({ name }) => name));
  return found !== null && typeof found === 'object' ? { ...found, locals, ...(namespace !== undefined ? { namespace } : {}) } : found;
}

/** After `export`: a re-export from another module, `other` for the module's own exports, null when not of esbuild's form. */
function exportDeclaration(tokens: Tokens): Declaration | { own: Pair[] } | 'other' | 'attributed' | null {
  const next = tokens.peek();
  if (next === '*') {
    tokens.next();
    let exported: string | null = null;
    if (tokens.peek() === 'as') {
      tokens.next();
      const name = tokens.next();
      exported = isString(name) ? unquote(name) : isIdentifierToken(name) ? name : null;
      if (exported === null) return null;
    }
    if (tokens.next() !== 'from') return null;
    const found = fromSpecifier(tokens, []);
    if (found === null || typeof found !== 'object') return found;
    return exported === null ? { ...found, star: true } : { ...found, namespaceExport: exported };
  }
  if (next !== '{') return 'other';
  tokens.next();
  const pairs = namedList(tokens);
  if (pairs === null) return null;
  if (tokens.peek() !== 'from') return { own: pairs };
  tokens.next();
  return fromSpecifier(tokens, pairs.map(({ name }) => name));
}

/** The specifier after `from` (or a bare `import`), and the attributes after it: an import with attributes (a CSS module script) is not judged. */
function fromSpecifier(tokens: Tokens, names: string[]): Declaration | 'attributed' | null {
  const token = tokens.next();
  const specifier = isString(token) ? unquote(token) : null;
  if (specifier === null) return null;
  if (tokens.peek() === 'with' || tokens.peek() === 'assert') return 'attributed';
  return { specifier, names };
}

/** `{ a, b as c, "d-e" as f }` after its `{`: each name before `as`, and after it. */
function namedList(tokens: Tokens): Pair[] | null {
  const pairs: Pair[] = [];
  const nameOf = (token: string | null) => (isString(token) ? unquote(token) : isIdentifierToken(token) ? token : null);
  for (;;) {
    const token = tokens.next();
    if (token === '}') return pairs;
    const name = nameOf(token);
    if (name === null) return null;
    let alias = name;
    let next = tokens.next();
    if (next === 'as') {
      const local = nameOf(tokens.next());
      if (local === null) return null;
      alias = local;
      next = tokens.next();
    }
    pairs.push({ name, alias });
    if (next === '}') return pairs;
    if (next !== ',') return null;
  }
}

const isString = (token: string | null): token is string => token !== null && (token.startsWith('"') || token.startsWith("'"));
const isIdentifier = (token: string): boolean => /^[\p{ID_Start}$_\\][\p{ID_Continue}$\u200c\u200d\\]*$/u.test(token);
const isIdentifierToken = (token: string | null): token is string => token !== null && isIdentifier(token);

/** A string token's value, as JSON reads a double-quoted one; null for one with an escape JSON does not take. */
function unquote(token: string): string | null {
  const body = token.slice(1, -1);
  const json = token.startsWith("'") ? `"${body.replace(/\\'/g, "'").replace(/"/g, '\\"')}"` : token;
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}

/** Words after which a `/` starts a regular expression, not a division. */
const BEFORE_EXPRESSION = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

/** A character of a word: ASCII letters, digits, `_`, `$`, `\\` (an escape), and any non-ASCII one (outside strings, only identifiers hold them in esbuild's output). */
const isWordCode = (code: number): boolean =>
  (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 36 || code === 92 || code > 127;

/** Whitespace and line ends (ASCII, NBSP, BOM, the Unicode line and space separators). */
const isSpaceCode = (code: number): boolean =>
  code === 32 || (code >= 9 && code <= 13) || code === 160 || code === 0xfeff || code === 0x2028 || code === 0x2029 || (code > 127 && /\s/.test(String.fromCharCode(code)));

/**
 * The tokens of a module: words, strings, punctuation (one character each); whitespace and
 * comments skipped; a template literal's text and a regular expression one token each (a
 * template's `${...}` read as tokens). A `/` after a value (a word, a number, `)`, `]`, a
 * template's end) divides; anywhere else it starts a regular expression. Read by character
 * codes: every module's whole output is read once per build.
 */
export class Tokens {
  at = 0;
  private last: string | null = null;
  /** The brace depth at which each open template's `${` was entered, innermost last. */
  private templates: number[] = [];
  private depth = 0;

  constructor(private readonly text: string) {
    if (text.startsWith('#!')) this.at = text.includes('\n') ? text.indexOf('\n') : text.length;
  }

  peek(): string | null {
    const { at, last, depth } = this;
    const templates = this.templates.length > 0 ? [...this.templates] : this.templates;
    const token = this.next();
    this.at = at;
    this.last = last;
    this.depth = depth;
    this.templates = templates;
    return token;
  }

  next(): string | null {
    const token = this.read();
    this.last = token;
    return token;
  }

  private read(): string | null {
    const { text } = this;
    this.skipSpace();
    if (this.at >= text.length) return null;
    const start = this.at;
    const code = text.charCodeAt(start);
    if (code === 34 || code === 39) {
      let end = start + 1;
      while (end < text.length) {
        const at = text.charCodeAt(end);
        if (at === code) break;
        end += at === 92 ? 2 : 1;
      }
      this.at = end + 1;
      return text.slice(start, this.at);
    }
    if (code === 96) {
      this.at += 1;
      return this.skipTemplate();
    }
    if (code === 47 && this.startsRegExp()) return this.skipRegExp();
    if (code === 123) this.depth += 1;
    else if (code === 125) {
      if (this.templates.length > 0 && this.templates[this.templates.length - 1] === this.depth) {
        this.templates = this.templates.slice(0, -1);
        this.depth -= 1;
        this.at += 1;
        return this.skipTemplate();
      }
      this.depth -= 1;
    }
    if (isWordCode(code)) {
      let end = start + 1;
      while (end < text.length && isWordCode(text.charCodeAt(end))) end += 1;
      this.at = end;
      return text.slice(start, end);
    }
    this.at += 1;
    return text[start]!;
  }

  private skipSpace(): void {
    const { text } = this;
    while (this.at < text.length) {
      const code = text.charCodeAt(this.at);
      if (isSpaceCode(code)) this.at += 1;
      else if (code === 47 && text.charCodeAt(this.at + 1) === 47) {
        const end = text.indexOf('\n', this.at);
        this.at = end === -1 ? text.length : end + 1;
      } else if (code === 47 && text.charCodeAt(this.at + 1) === 42) {
        const end = text.indexOf('*/', this.at + 2);
        this.at = end === -1 ? text.length : end + 2;
      } else return;
    }
  }

  /** From inside a template literal to its end (`\``), or into a `${` (`${`: its expression then read as tokens). */
  private skipTemplate(): string {
    const { text } = this;
    while (this.at < text.length) {
      const code = text.charCodeAt(this.at);
      if (code === 92) this.at += 2;
      else if (code === 96) {
        this.at += 1;
        return '`';
      } else if (code === 36 && text.charCodeAt(this.at + 1) === 123) {
        this.at += 2;
        this.depth += 1;
        this.templates = [...this.templates, this.depth];
        return '${';
      } else this.at += 1;
    }
    return '`';
  }

  private startsRegExp(): boolean {
    const last = this.last;
    if (last === null) return true;
    // After a value: a closing bracket, a template literal's end, a regular expression, a string.
    const first = last.charCodeAt(0);
    if (last === ')' || last === ']' || last === '`' || (first === 47 && last.length > 1) || first === 34 || first === 39) return false;
    if (isWordCode(first)) return BEFORE_EXPRESSION.has(last);
    return true;
  }

  private skipRegExp(): string {
    const { text } = this;
    const start = this.at;
    let inClass = false;
    this.at += 1;
    while (this.at < text.length) {
      const code = text.charCodeAt(this.at);
      if (code === 92) this.at += 2;
      else if (code === 10) break;
      else {
        this.at += 1;
        if (code === 91) inClass = true;
        else if (code === 93) inClass = false;
        else if (code === 47 && !inClass) break;
      }
    }
    while (this.at < text.length && isWordCode(text.charCodeAt(this.at))) this.at += 1;
    return text.slice(start, Math.max(this.at, start + 2));
  }
}

/** How a name resolves through a module's exports, as a browser links it. */
type Resolution =
  /** The module or one it re-exports whole gives it: where from (a module and a name, or a module alone for its namespace). */
  | { found: string }
  | 'missing'
  /** Two modules it re-exports whole give different bindings of it. */
  | 'ambiguous'
  /** A module on the way is not built yet, or is being built again: said once it is. */
  | 'unknown'
  /** A module on the way is never judged (a package the CDN serves, an invalid module, code not read): nothing is said, now or later. */
  | 'unjudged';

/** One name a module imports that the other module does not give. */
export interface UnlinkedName {
  specifier: string;
  name: string;
  ambiguous: boolean;
}

/**
 * The names a module's page links by: those its own code imports (`links`), and those each shared
 * file its build imports imports in turn (`chunkLinks`, README "Shared files"). A shared file is
 * built alone, so esbuild never looks into the file it imports: a name missing there fails the
 * page as one missing from the module's own import does, and is judged with them.
 */
export function linkedThroughSharedFiles(links: LinkNames | undefined, chunkLinks: Readonly<Record<string, LinkNames>> | undefined): LinkNames | undefined {
  const chunks = Object.values(chunkLinks ?? {}).filter((chunk) => chunk.imports);
  if (!links || chunks.length === 0) return links;
  const imports = new Map<string, Set<string>>();
  for (const { specifier, names } of [links, ...chunks].flatMap((part) => part.imports ?? [])) {
    const wanted = imports.get(specifier) ?? new Set<string>();
    for (const name of names) wanted.add(name);
    imports.set(specifier, wanted);
  }
  return { ...links, imports: [...imports].map(([specifier, names]) => ({ specifier, names: [...names].sort() })) };
}

/**
 * The names `links` imports that the modules of the workspace do not export, judged with each
 * one's own link names (`linksOf`: undefined for a specifier that is no judged module, null for one
 * not known yet). `unknown`: targets not built yet, whose names are judged when they are.
 */
export function unlinkedNames(links: LinkNames, linksOf: (specifier: string) => LinkNames | null | undefined): { unlinked: UnlinkedName[]; unknown: string[] } {
  const unlinked: UnlinkedName[] = [];
  const unknown = new Set<string>();
  for (const { specifier, names } of links.imports ?? []) {
    const target = linksOf(specifier);
    if (target === undefined) continue;
    if (target === null) {
      unknown.add(specifier);
      continue;
    }
    for (const name of names) {
      const resolution = resolveName(specifier, name, linksOf, new Set());
      if (resolution === 'missing' || resolution === 'ambiguous') unlinked.push({ specifier, name, ambiguous: resolution === 'ambiguous' });
      else if (resolution === 'unknown') unknown.add(specifier);
      // 'unjudged': as an import of a module never judged, neither refused nor waited for.
    }
  }
  return { unlinked, unknown: [...unknown].sort() };
}

/** ResolveExport of the ECMAScript module linking, over recorded names: own exports first, `default` never through a star, a cycle gives nothing. */
function resolveName(specifier: string, name: string, linksOf: (specifier: string) => LinkNames | null | undefined, seen: Set<string>): Resolution {
  const links = linksOf(specifier);
  if (links === null) return 'unknown';
  // Never judged: waiting for it would leave the importer pending for ever.
  if (links === undefined) return 'unjudged';
  const key = `${specifier}\0${name}`;
  if (seen.has(key)) return 'missing';
  seen.add(key);
  if (links.exports.includes(name)) {
    // A module's namespace is one binding wherever it is exported from (a specifier holds no NUL, so no name's key is this one).
    const namespace = links.namespaces?.find((candidate) => candidate.name === name);
    if (namespace) return { found: namespace.specifier };
    const reexport = links.reexports?.find((candidate) => candidate.name === name);
    if (!reexport) return { found: key };
    // The other module's binding, as a browser resolves it; one missing there is that module's own error.
    const origin = `${reexport.specifier}\0${reexport.imported}`;
    if (linksOf(reexport.specifier) === undefined) return { found: origin };
    const resolution = resolveName(reexport.specifier, reexport.imported, linksOf, seen);
    return resolution === 'missing' || resolution === 'ambiguous' || resolution === 'unjudged' ? { found: origin } : resolution;
  }
  if (name === 'default') return 'missing';
  let found: string | null = null;
  let unknown = false;
  let unjudged = false;
  for (const star of links.stars ?? []) {
    const resolution = resolveName(star, name, linksOf, seen);
    if (resolution === 'ambiguous') return 'ambiguous';
    if (resolution === 'unknown') unknown = true;
    else if (resolution === 'unjudged') unjudged = true;
    else if (resolution !== 'missing') {
      if (found !== null && found !== resolution.found) return 'ambiguous';
      found = resolution.found;
    }
  }
  if (found !== null) return { found };
  return unknown ? 'unknown' : unjudged ? 'unjudged' : 'missing';
}

/** The BUNDLE_ERROR of a name imported that the other module does not give, at the import of it among `imports` (README "Bundling real code"). */
export function unlinkedDiagnostic({ specifier, name, ambiguous }: UnlinkedName, imports: readonly ImportRecord[]): Diagnostic {
  const place = imports.find((imported) => imported.specifier === specifier);
  const where = place ? { file: place.file, line: place.line, column: place.column } : {};
  if (ambiguous) {
    return diagnostic(
      'BUNDLE_ERROR',
      `"${name}" is exported by more than one module that ${specifier} re-exports whole (export * from): a browser refuses the import as ambiguous ("contains conflicting star exports for name '${name}'"); import it from the module that defines it, or have ${specifier} export it by name`,
      where,
    );
  }
  const shared = sharedFileOf(specifier);
  if (shared !== null) {
    // Written as a relative import of the file; the internal specifier is the service's (README "Shared files").
    return diagnostic(
      'BUNDLE_ERROR',
      `${shared.file}, a file several modules of ${shared.packageName} import (built alone as ${specifier}), does not export "${name}" (the page fails to link: "does not provide an export named '${name}'"); import only names that file exports`,
      where,
    );
  }
  if (name === 'default') {
    return diagnostic('BUNDLE_ERROR', `${specifier} has no default export (the page fails to link: "does not provide an export named 'default'"); import the names it exports, \`import { ... } from "${specifier}"\`, or \`import * as ... from "${specifier}"\``, where);
  }
  return diagnostic(
    'BUNDLE_ERROR',
    `${specifier} does not export "${name}" (the page fails to link: "does not provide an export named '${name}'"); import only names its code exports, and, if "${name}" is a TypeScript type, write \`import type { ${name} }\` or \`export type { ${name} } from "${specifier}"\`, which leave no import in the code`,
    where,
  );
}

/** The package and the path in it of a shared file's internal specifier (`@r/lib/.shared/src/x.ts`), or null for any other specifier. */
function sharedFileOf(specifier: string): { packageName: string; file: string } | null {
  const bare = parseBareSpecifier(specifier);
  return bare && isSharedSubpath(bare.subpath) ? { packageName: bare.packageName, file: bare.subpath.slice(SHARED_SEGMENT.length + 1) } : null;
}
