// A sheet's `@import` or `url()` of another module's or package's address from the origin's root
// (`@import url(/m/@acme/ui@1.0.0/styles/card);`) is kept as written by every build (README
// "Workspaces"): on `/preview/` the service answers it. `core dist`'s layout has no `/m/`, so in its
// files such an address is made the relative path of the output it names, where `core dist` writes
// that output; one it does not write is told, and the page linking that sheet is not written
// (README "Distribution: core dist"). Pure: the written files' bytes in, new bytes out.
import path from 'node:path';
import { contentHash } from '../outputs/content-hash.js';
import type { DistributionFile, ModuleOutcome } from './judge-module.js';

// A `url()` (quoted or not) or an `@import` string naming an address under `/m/`, as esbuild prints them.
const SERVED_ADDRESS = /url\(\s*(?:"(\/m\/[^"\\\n]*)"|'(\/m\/[^'\\\n]*)'|(\/m\/[^"'()\s\\]*))\s*\)|@import\s*(?:"(\/m\/[^"\\\n]*)"|'(\/m\/[^'\\\n]*)')/g;

/** Each sheet that names an address under `/m/` that `core dist` does not write: the module's specifier -> those addresses. */
export type UnservedAddresses = ReadonlyMap<string, readonly string[]>;

/** `outcomes` with every written sheet's `/m/` addresses of written outputs made relative, and those of outputs not written. */
export function relativeServedAddresses(outcomes: readonly ModuleOutcome[]): { outcomes: ModuleOutcome[]; unserved: UnservedAddresses } {
  const writtenPaths = new Set(outcomes.flatMap((outcome) => (outcome.status === 'written' ? outcome.files.map((file) => file.path) : [])));
  const unserved = new Map<string, string[]>();
  const rewritten = outcomes.map((outcome) => {
    if (outcome.status !== 'written' || !outcome.files.some((file) => file.kind === 'styles')) return outcome;
    const files = outcome.files.map((file) => {
      if (file.kind !== 'styles') return file;
      const { content, missing } = relativeSheet(file, writtenPaths);
      if (missing.length > 0) unserved.set(outcome.module.specifier, missing);
      return content === file.content ? file : { ...file, content, hash: contentHash(content), size: content.byteLength };
    });
    return { ...outcome, files };
  });
  return { outcomes: rewritten, unserved };
}

function relativeSheet(file: DistributionFile, writtenPaths: ReadonlySet<string>): { content: Uint8Array; missing: string[] } {
  const text = Buffer.from(file.content.buffer, file.content.byteOffset, file.content.byteLength).toString('utf8');
  if (!text.includes('/m/')) return { content: file.content, missing: [] };
  const missing: string[] = [];
  const made = text.replace(SERVED_ADDRESS, (token, ...groups: (string | undefined)[]) => {
    const address = groups.slice(0, 5).find((group) => group !== undefined)!;
    const output = outputPathOf(address);
    if (output === null || !writtenPaths.has(output)) {
      missing.push(address);
      return token;
    }
    const relative = path.posix.relative(path.posix.dirname(file.path), output).split('/').map(addressSegment).join('/');
    return token.startsWith('@') ? `@import "${relative}"` : `url(${relative})`;
  });
  return { content: made === text ? file.content : Buffer.from(made), missing: [...new Set(missing)] };
}

/** The output path `core dist` writes for a `/m/` address (README "Addresses"), or null when it names none. */
function outputPathOf(address: string): string | null {
  const raw = address.replace(/[?#].*$/, '').slice('/m/'.length).split('/');
  let segments: string[];
  try {
    segments = raw.map((segment) => decodeURIComponent(segment));
  } catch {
    return null;
  }
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return null;
  const nameLength = segments[0]?.startsWith('@') ? 2 : 1;
  const nameAtVersion = segments.slice(0, nameLength).join('/');
  const [kind, ...rest] = segments.slice(nameLength);
  if (nameAtVersion.lastIndexOf('@') <= 0 || rest.length === 0) return null;
  if (kind === 'assets') return `${nameAtVersion}/assets/${rest.join('/')}`;
  if (kind === 'styles') return `${nameAtVersion}/styles/${rest.join('/')}.css`;
  if (kind === 'modules') return `${nameAtVersion}/modules/${rest.join('/')}.js`;
  return null;
}

// A segment of a relative address: percent-encoded where a URL or a `url()` token needs it, `@` kept.
const addressSegment = (segment: string): string => (segment === '..' ? segment : encodeURIComponent(segment).replace(/%40/g, '@').replace(/[()'*!]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`));
