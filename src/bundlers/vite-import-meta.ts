// Vite's own members of `import.meta` (README "Bundling real code"): `import.meta.env` and
// `import.meta.glob` are defined by no browser, no Node and no esbuild build, which keeps them as
// written, so the page threw where one was read ("Cannot read properties of undefined", "not a
// function") while `/state` said valid. The five members Vite itself defines for every build
// (`import.meta.env.MODE`, `DEV`, `PROD`, `SSR`, `BASE_URL`) are defined from the variant, as
// Vite's build replaces them, so code guarded by `import.meta.env.DEV` is dead in production.
// Everything else is defined as marker names unless the package defines it itself
// (`core.define`, whose longer keys esbuild applies first): esbuild replaces only real reads,
// never a mention in a string or a comment, so a marker left in the code is such a read, and an
// error at its place. A module that reads none is built byte for byte as before.
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import { lineAndColumn } from '../workspace/json.js';
import type { PlacedReads } from './placed-reads.js';
import { bufferView } from '../outputs/buffer-view.js';
import type { Variant } from '../workspace/variant.js';
import { Tokens } from '../workspace/link-names.js';

const MARKER_PREFIX = '__core_vite_import_meta_';
const ENV_BUILT_IN = 'import.meta.env.MODE, .DEV, .PROD, .SSR and .BASE_URL are defined for every build, as Vite defines them';
const ENV_NO_DOT_ENV = "Vite would read it from a .env file; this service reads none";
const MEMBERS = {
  env: `import.meta.env is read as a whole object (or by a computed key), which this service does not define (Vite's build puts an object of its defined members there; here a member read from it that nothing defines would be undefined on the page without a word): only a member read by its name is replaced (${ENV_NO_DOT_ENV}). Read each member by its name, or define the whole object as "import.meta.env" in "core.define" of the package's package.json. ${ENV_BUILT_IN}`,
  glob: `import.meta.glob is Vite's: no browser and no esbuild build defines it, so calling it throws on the page (not a function). Import the files by a dynamic import with a pattern (import(\`./pages/\${name}.ts\`)), which is bundled, or import each`,
  globEager: `import.meta.globEager is Vite's (and gone from Vite 5): no browser and no esbuild build defines it, so calling it throws on the page (not a function). Import each file`,
} as const;

type Member = keyof typeof MEMBERS;
// The member and, for `env`, the property read after it (none: the whole object, or a computed key).
const MARKED = new RegExp(`${MARKER_PREFIX}(${Object.keys(MEMBERS).join('|')})__(?:\\s*\\.\\s*([\\w$]+))?`, 'g');
const MARK = Buffer.from(MARKER_PREFIX);

/** The members of `import.meta.env` every Vite build defines, and this service too. */
export const VITE_ENV_MEMBERS = ['MODE', 'DEV', 'PROD', 'SSR', 'BASE_URL'] as const;

/**
 * esbuild `define` entries for Vite's built-in `import.meta.env` members, from the variant, as
 * Vite defines them: MODE the env, DEV and PROD from it, SSR for a build that runs in Node, and
 * BASE_URL "/", where the service serves its pages (README "Bundling real code"). The package's
 * own `core.define` wins: a member it defines, or the whole object, is left to it.
 */
export function viteEnvDefines(variant: Pick<Variant, 'env' | 'target'>, define: Readonly<Record<string, string>> = {}): Record<string, string> {
  if (define['import.meta.env'] !== undefined) return {};
  const values: Record<(typeof VITE_ENV_MEMBERS)[number], string> = {
    MODE: JSON.stringify(variant.env),
    DEV: String(variant.env === 'development'),
    PROD: String(variant.env === 'production'),
    SSR: String(variant.target === 'node'),
    BASE_URL: JSON.stringify('/'),
  };
  const defines: Record<string, string> = {};
  for (const member of VITE_ENV_MEMBERS) if (define[`import.meta.env.${member}`] === undefined) defines[`import.meta.env.${member}`] = values[member];
  return defines;
}

/** esbuild `define` entries for the members the package's own `define` leaves undefined. */
export function viteImportMetaMarkers(define: Readonly<Record<string, string>> = {}): Record<string, string> {
  const markers: Record<string, string> = {};
  for (const member of Object.keys(MEMBERS)) if (define[`import.meta.${member}`] === undefined) markers[`import.meta.${member}`] = `${MARKER_PREFIX}${member}__`;
  return markers;
}

/**
 * The errors of a module's code: one per member it still reads (for `import.meta.env`, one per
 * property, and one for the whole object), at the first place a source reads it.
 */
export function viteImportMetaReads(reads: PlacedReads, code: Uint8Array, sources: readonly string[], define: Readonly<Record<string, string>> = {}): Diagnostic[] {
  const bytes = bufferView(code);
  const held = define['import.meta.env'] === undefined && bytes.indexOf(IMPORT_META) !== -1 ? heldEnvRead(reads, bytes.toString('utf8'), sources) : [];
  if (bytes.indexOf(MARK) === -1) return held;
  const read = new Map<string, { member: Member; property: string | undefined }>();
  for (const match of bytes.toString('utf8').matchAll(MARKED)) {
    const member = match[1] as Member;
    const property = member === 'env' ? match[2] : undefined;
    read.set(`${member}.${property ?? ''}`, { member, property });
  }
  return [...read.values()]
    .map(({ member, property }) => diagnostic('BUNDLE_ERROR', messageOf(member, property), placeOf(reads, sources, member, property, define) ?? {}))
    .concat(held)
    .sort((a, b) => (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

function messageOf(member: Member, property: string | undefined): string {
  if (member !== 'env' || property === undefined) return MEMBERS[member];
  return `import.meta.env.${property} is not defined for this build (${ENV_NO_DOT_ENV}): define it in "core.define" of the package's package.json ({"import.meta.env.${property}": "\\"...\\""}), or read process.env.NODE_ENV, which follows the variant's env. ${ENV_BUILT_IN}`;
}

// The first read in the sources' text that is in no string or line comment of its line: of the
// property named, or for `import.meta.env` as a whole, of none of the members defined (the place
// only: that a read exists, esbuild told).
function placeOf(reads: PlacedReads, sources: readonly string[], member: Member, property: string | undefined, define: Readonly<Record<string, string>>): { file: string; line: number; column: number } | null {
  const pattern = new RegExp(`\\bimport\\.meta\\.${member}\\b`, 'g');
  const defined = (name: string) => define[`import.meta.${member}.${name}`] !== undefined || (member === 'env' && (VITE_ENV_MEMBERS as readonly string[]).includes(name));
  for (const file of sources) {
    const text = reads.text(file);
    if (text === null) continue;
    for (const match of text.matchAll(pattern)) {
      const before = text.slice(text.lastIndexOf('\n', match.index) + 1, match.index);
      if (before.includes('//') || /^(?:[^'"`]|'[^']*'|"[^"]*"|`[^`]*`)*['"`]/.test(before)) continue;
      const read = /^\s*\.\s*([\w$]+)/.exec(text.slice(match.index + match[0].length))?.[1];
      if (property !== undefined ? read !== property : member === 'env' ? read !== undefined : read !== undefined && defined(read)) continue;
      return { file, ...lineAndColumn(text, match.index) };
    }
  }
  return null;
}

const IMPORT_META = Buffer.from('import.meta');
/** `import.meta` held whole: not followed by a member read. */
const HELD = /\bimport\s*\.\s*meta\b(?!\s*\.)/;

const HELD_ENV = `import.meta is held whole and env read from it (const m = import.meta; m.env.MODE, or const { env } = import.meta): esbuild replaces only import.meta.env.<NAME> written out, so on the page env is undefined. Read each member as import.meta.env.<NAME>. ${ENV_BUILT_IN}`;

/**
 * `env` read from `import.meta` held by a binding (`const m = import.meta; m.env`) or taken by
 * destructuring (`const { env } = import.meta`): no define reaches it, so the page reads undefined
 * (README "Bundling real code"). Looked for in the code's tokens only when it holds `import.meta`
 * whole; `import.meta.url` and `import.meta.resolve` are member reads, never held.
 */
function heldEnvRead(reads: PlacedReads, text: string, sources: readonly string[]): Diagnostic[] {
  if (!HELD.test(text)) return [];
  const tokens: string[] = [];
  const reader = new Tokens(text);
  for (let token = reader.next(); token !== null; token = reader.next()) tokens.push(token);
  const readsEnv = (at: number): boolean => {
    if (tokens[at - 1] !== '=') return false;
    const held = tokens[at - 2];
    if (held === '}') {
      // A destructuring pattern: `env` among its keys, at its own level.
      for (let index = at - 3, depth = 0; index >= 0; index -= 1) {
        const token = tokens[index];
        if (token === '}') depth += 1;
        else if (token === '{' && depth-- === 0) return false;
        else if (token === 'env' && depth === 0 && [',', '{'].includes(tokens[index - 1]!)) return true;
      }
      return false;
    }
    return held !== undefined && /^[\p{ID_Start}$_][\p{ID_Continue}$]*$/u.test(held) && tokens.some((token, index) => token === held && tokens[index + 1] === '.' && tokens[index + 2] === 'env');
  };
  for (let at = 0; at + 2 < tokens.length; at += 1) {
    if (tokens[at] !== 'import' || tokens[at + 1] !== '.' || tokens[at + 2] !== 'meta' || tokens[at + 3] === '.') continue;
    if (readsEnv(at)) return [diagnostic('BUNDLE_ERROR', HELD_ENV, heldPlace(reads, sources) ?? {})];
  }
  return [];
}

// The first place a source holds `import.meta` whole, outside a line comment.
function heldPlace(reads: PlacedReads, sources: readonly string[]): { file: string; line: number; column: number } | null {
  for (const file of sources) {
    const text = reads.text(file);
    if (text === null) continue;
    for (const match of text.matchAll(new RegExp(HELD.source, 'g'))) {
      const before = text.slice(text.lastIndexOf('\n', match.index) + 1, match.index);
      if (!before.includes('//')) return { file, ...lineAndColumn(text, match.index) };
    }
  }
  return null;
}
