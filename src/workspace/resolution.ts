// The paths esbuild tries, in order, for an import before the file it finds (README "Bundling
// real code"): each is an input of the module, absent, so that a file made there builds it
// again. Pure: found from the paths written and the one resolved.
import path from 'node:path';

/** esbuild's default `resolveExtensions`, in the order it tries them. */
export const RESOLVE_EXTENSIONS: readonly string[] = ['.tsx', '.ts', '.jsx', '.js', '.css', '.json'];
/**
 * The same, in the order esbuild tries them for a file inside `node_modules` (an installed
 * package's, README "The local CDN"): JavaScript before TypeScript, as a package publishes both.
 */
export const INSTALLED_EXTENSIONS: readonly string[] = ['.jsx', '.js', '.tsx', '.ts', '.css', '.json'];
/** The TypeScript sources esbuild tries for an import naming the JavaScript file tsc would emit. */
export const TYPESCRIPT_REWRITES: Readonly<Record<string, readonly string[]>> = { '.js': ['.ts', '.tsx'], '.jsx': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'] };

const stemOf = (file: string): string => file.slice(0, file.length - path.posix.extname(file).length);

/** Whether `resolved` is the path `written` itself, an extension added or rewritten, or a directory's index: no link crossed. */
export const resolvedBeside = (written: string, resolved: string): boolean =>
  resolved === written || resolved.startsWith(`${written}.`) || resolved.startsWith(`${written}/`) || resolved.startsWith(`${stemOf(written)}.`);

/** The paths esbuild tries, for the path `written`, before `resolved` (beside it); `extensions` in the order it tries them there. */
export function triedBefore(written: string, resolved: string, extensions = RESOLVE_EXTENSIONS): string[] {
  if (resolved === written) return [];
  const stem = stemOf(written);
  const upTo = (base: string, extensions: readonly string[]) => {
    const tried: string[] = [];
    for (const extension of extensions) {
      if (base + extension === resolved) break;
      tried.push(base + extension);
    }
    return tried;
  };
  if (resolved.startsWith(`${written}.`) && !resolved.includes('/', written.length)) return [written, ...upTo(written, extensions)];
  const rewrites = TYPESCRIPT_REWRITES[path.posix.extname(written)];
  // esbuild tries the written name with each extension added before it rewrites `.js` to `.ts`
  // (`./x.js` tries `x.js.jsx`, ... before `x.ts`): a file made at one of them is found instead.
  if (rewrites && resolved.startsWith(`${stem}.`) && !resolved.includes('/', stem.length)) return [written, ...extensions.map((extension) => written + extension), ...upTo(stem, rewrites)];
  // A directory: every file its name could be, then the indexes before the one found.
  if (resolved.startsWith(`${written}/`)) return [...extensions.map((extension) => written + extension), ...upTo(`${written}/index`, extensions)];
  return [];
}

/**
 * The paths esbuild tries for a mapped import (a tsconfig `paths` entry's targets in order, or
 * the `baseUrl` path) before `resolved`: every path of each earlier target, then those of the
 * target that found it. None when no target leads to it (esbuild found it otherwise).
 */
export function triedThrough(targets: readonly string[], resolved: string): string[] {
  const tried: string[] = [];
  for (const target of targets) {
    if (resolvedBeside(target, resolved)) return [...tried, ...triedBefore(target, resolved)];
    tried.push(target, ...RESOLVE_EXTENSIONS.map((extension) => target + extension), ...(TYPESCRIPT_REWRITES[path.posix.extname(target)] ?? []).map((extension) => stemOf(target) + extension));
    tried.push(...RESOLVE_EXTENSIONS.map((extension) => `${target}/index${extension}`));
  }
  return [];
}
