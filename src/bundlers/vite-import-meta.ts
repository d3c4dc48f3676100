// Vite's own members of `import.meta` (README "Bundling real code"): `import.meta.env` and
// `import.meta.glob` are defined by no browser, no Node and no esbuild build, which keeps them as
// written, so the page threw where one was read ("Cannot read properties of undefined", "not a
// function") while `/state` said valid. Each build defines them as marker names unless the
// package defines them itself (`core.define`, whose longer keys esbuild applies first): esbuild
// replaces only real reads, never a mention in a string or a comment, so a marker left in the code
// is such a read, and an error at its place. A module that reads none is built byte for byte as before.
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import { lineAndColumn } from '../workspace/json.js';
import type { PlacedReads } from './placed-reads.js';
import { bufferView } from '../outputs/buffer-view.js';

const MARKER_PREFIX = '__core_vite_import_meta_';
const MEMBERS = {
  env: `import.meta.env is Vite's: no browser, no Node and no esbuild build defines it, so reading it throws on the page (Cannot read properties of undefined). Define what the package reads in "core.define" of its package.json ({"import.meta.env.VITE_API": "\\"https://...\\""}, or the whole object as "import.meta.env"), or read process.env.NODE_ENV, which follows the variant's env`,
  glob: `import.meta.glob is Vite's: no browser and no esbuild build defines it, so calling it throws on the page (not a function). Import the files by a dynamic import with a pattern (import(\`./pages/\${name}.ts\`)), which is bundled, or import each`,
  globEager: `import.meta.globEager is Vite's (and gone from Vite 5): no browser and no esbuild build defines it, so calling it throws on the page (not a function). Import each file`,
} as const;

type Member = keyof typeof MEMBERS;
const MARKED = new RegExp(`${MARKER_PREFIX}(${Object.keys(MEMBERS).join('|')})__`, 'g');
const MARK = Buffer.from(MARKER_PREFIX);

/** esbuild `define` entries for the members the package's own `define` leaves undefined. */
export function viteImportMetaMarkers(define: Readonly<Record<string, string>> = {}): Record<string, string> {
  const markers: Record<string, string> = {};
  for (const member of Object.keys(MEMBERS)) if (define[`import.meta.${member}`] === undefined) markers[`import.meta.${member}`] = `${MARKER_PREFIX}${member}__`;
  return markers;
}

/** The errors of a module's code: one per member it still reads, at the first place a source reads it. */
export function viteImportMetaReads(reads: PlacedReads, code: Uint8Array, sources: readonly string[], define: Readonly<Record<string, string>> = {}): Diagnostic[] {
  const bytes = bufferView(code);
  if (bytes.indexOf(MARK) === -1) return [];
  const read = new Set([...bytes.toString('utf8').matchAll(MARKED)].map((match) => match[1] as Member));
  return [...read]
    .map((member) => diagnostic('BUNDLE_ERROR', MEMBERS[member], placeOf(reads, sources, member, define) ?? {}))
    .sort((a, b) => (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0));
}

// The first read in the sources' text that is in no string or line comment of its line, nor of a
// member the package defines (the place only: that a read exists, esbuild told).
function placeOf(reads: PlacedReads, sources: readonly string[], member: Member, define: Readonly<Record<string, string>>): { file: string; line: number; column: number } | null {
  const pattern = new RegExp(`\\bimport\\.meta\\.${member}\\b`, 'g');
  for (const file of sources) {
    const text = reads.text(file);
    if (text === null) continue;
    for (const match of text.matchAll(pattern)) {
      const before = text.slice(text.lastIndexOf('\n', match.index) + 1, match.index);
      if (before.includes('//') || /^(?:[^'"`]|'[^']*'|"[^"]*"|`[^`]*`)*['"`]/.test(before)) continue;
      const property = /^\s*\.\s*([\w$]+)/.exec(text.slice(match.index + match[0].length))?.[1];
      if (property !== undefined && define[`import.meta.${member}.${property}`] !== undefined) continue;
      return { file, ...lineAndColumn(text, match.index) };
    }
  }
  return null;
}
