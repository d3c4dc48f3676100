// A module bundles files of the workspace only (README "Links and large trees"): a relative
// import, or a symbolic link, whose real path leads out of the workspace is refused at the
// import, never read. Its content would be served as if it were the workspace's, and no watch
// or check would ever see it change. Installed packages (`node_modules`) stay allowed, as
// before. The load's filter is evaluated by esbuild in Go on the real path it is about to load,
// so a file inside the workspace never costs a call into JavaScript there.
//
// The load comes too late for a link leading out: esbuild, resolving the import, follows the
// link and reads the `package.json` and `tsconfig.json` of the folder it leads to and of each
// folder above, outside the workspace, where a FIFO held the build for ever (README "Files that
// are not files": nothing outside the workspace is opened to release it). So each relative import
// (and each entry) is looked at before esbuild resolves it: the file esbuild would pick, found in
// its folder's listing, is refused here when it is a link whose real path leaves the workspace,
// as is any import whose folder really lies outside. A folder is listed once per build; only a
// link has its real path taken.
//
// Where the service's tree watcher vouches that no link of the workspace leads out (README "Links
// and large trees": it walks every directory and sees every link), a `./` import cannot leave the
// workspace: esbuild hands it the real folder of its importer, inside, and without a link nothing
// below a folder lies elsewhere. Only an import that climbs (`..`), or goes through a folder the
// watcher skips (`node_modules`, a dot-directory: a link there is not seen), is then looked at, so
// the `./` imports of a build made once the watcher has walked the tree cost no call into
// JavaScript (a start's builds come before that walk, and pay as before).
import fs from 'node:fs';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { escapeRegExp, notStartingWith } from '../filters.js';
import { RESOLVE_EXTENSIONS, TYPESCRIPT_REWRITES } from '../../workspace/resolution.js';
import { loadTsconfig, pathsTargets, tsconfigPlaces, type LoadedTsconfig } from '../../workspace/tsconfig.js';
import { readRegularFile } from '../../regular-files.js';

const realRoots = new Map<string, string>();

function realRootOf(root: string): string {
  let real = realRoots.get(root);
  if (real === undefined) {
    try {
      real = fs.realpathSync.native(root);
    } catch {
      real = root; // absent: the build says so
    }
    realRoots.set(root, real);
  }
  return real;
}

/** The plugin's name, which esbuild gives each of its messages (`pluginName`). */
export const WORKSPACE_CONFINEMENT = 'core-workspace-confinement';

/** A relative import, as written. */
const RELATIVE = /^\.\.?(?:\/|$)/;

/**
 * A relative import that climbs (`..`) or names a folder the tree watcher does not walk (a
 * dot-directory, `node_modules`), as written: the only ones that may lead out while no link does.
 * esbuild's filters are Go's regular expressions, which have no lookahead.
 */
export const CLIMBING_OR_UNWATCHED = /^\.\.(?:\/|$)|^\.\/(?:.*\/)?(?:\.[^/]+|node_modules)(?:\/|$)/;

/** Whether a workspace-relative path goes through a folder the tree watcher does not walk. */
const throughUnwatched = (relative: string) => relative.split(/[\\/]/).some((segment) => segment === 'node_modules' || (segment.startsWith('.') && segment !== '.'));

/** A bare import, as written (a package, or a name a tsconfig `paths` or `baseUrl` maps). */
const BARE = /^[^./]/;

/**
 * `noLinkLeadsOut`: the tree watcher vouches that no symbolic link of the workspace leads out of it
 * (README "Links and large trees"): only relative imports that climb or go through an unwatched
 * folder are looked at before esbuild resolves them, and only entries through such a folder.
 * `linkLeadsOut`: it has seen one that may: a bare import a tsconfig mapping sends is looked at
 * too (a call on every bare import, paid only then: README "Files that are not files").
 */
export function workspaceConfinementPlugin(root: string, noLinkLeadsOut = false, linkLeadsOut = false): esbuild.Plugin {
  const real = realRootOf(root);
  // The root folder itself is inside: a root package (`"packages": ["."]`) and a file beside
  // core.json are the workspace's (README "Files that are not files").
  const inside = (file: string) => file === real || file === root || file.startsWith(real + path.sep) || file.startsWith(root + path.sep);
  // The real paths a module may bundle: the workspace's, and an installed package's wherever it is.
  const allowed = (file: string) => inside(file) || file.split(path.sep).includes('node_modules');
  const refusal = (file: string): esbuild.PartialMessage => {
    const shown = path.relative(real, file).split(path.sep).join('/');
    return { text: `${shown} is outside the workspace, and is not read: a module bundles files of the workspace only; move the file into the workspace, or import it as a package` };
  };
  return {
    name: WORKSPACE_CONFINEMENT,
    setup(build) {
      const leading = linkLeading(build.initialOptions.resolveExtensions ?? RESOLVE_EXTENSIONS, allowed);
      // What a build learnt of the folders is forgotten as it ends: a link retargeted between two
      // builds of a kept context is seen by the next.
      build.onEnd(() => leading.forget());
      const refused = (led: string | null): esbuild.OnResolveResult | undefined => (led === null ? undefined : { errors: [refusal(led)] });
      build.onResolve({ filter: noLinkLeadsOut ? CLIMBING_OR_UNWATCHED : RELATIVE, namespace: 'file' }, (args) => refused(leading.outside(path.resolve(args.resolveDir, args.path.replace(/[?#].*$/, '')), args.resolveDir)));
      // The entries are looked at here, with no call from esbuild per entry (a first start builds
      // hundreds at once), and only those leading out get a callback. A kept context (one entry)
      // runs this once for all its builds: its entry is asked about at each.
      const entries = entryPaths(build.initialOptions.entryPoints).filter((entry) => !noLinkLeadsOut || throughUnwatched(path.relative(root, entry)));
      const entriesOut = entries.length === 1 ? entries : entries.filter((entry) => leading.outside(entry, real) !== null);
      if (linkLeadsOut) {
        const mappings = tsconfigMappings(real);
        build.onResolve({ filter: BARE, namespace: 'file' }, (args) => {
          for (const target of mappings.targets(args.path, args.resolveDir)) {
            const led = leading.outside(target, real);
            if (led !== null) return refused(led);
          }
          return undefined;
        });
        build.onEnd(() => mappings.forget());
      }
      if (entriesOut.length > 0) {
        build.onResolve({ filter: new RegExp(`^(?:${entriesOut.map(escapeRegExp).join('|')})$`), namespace: 'file' }, (args) => (args.kind === 'entry-point' ? refused(leading.outside(args.path, real)) : undefined));
      }
      build.onLoad({ filter: notStartingWith(real + path.sep), namespace: 'file' }, (args) => (allowed(args.path) ? undefined : { errors: [refusal(args.path)] }));
    },
  };
}

/**
 * Where a tsconfig mapping (`paths`, else `baseUrl`) of the nearest tsconfig.json or jsconfig.json
 * of an importer's folder (inside the workspace) sends a bare import: absolute paths, the most
 * specific pattern's targets, in order. Configs are read as regular files only (a FIFO is no
 * config here: the build's own watch handles it, README "Files that are not files"), once per
 * folder until `forget`; `extends` through a package is not followed.
 */
function tsconfigMappings(root: string) {
  const configs = new Map<string, LoadedTsconfig | null>();
  // Each file once until `forget`: the search for the nearest config and its load ask for the same ones.
  const texts = new Map<string, string | null>();
  const read = (relative: string): string | null => {
    let text = texts.get(relative);
    if (text === undefined) {
      try {
        text = readRegularFile(path.join(root, relative)).bytes.toString('utf8');
      } catch {
        text = null;
      }
      texts.set(relative, text);
    }
    return text;
  };
  const configOf = (relativeDir: string): LoadedTsconfig | null => {
    let config = configs.get(relativeDir);
    if (config === undefined) {
      const place = tsconfigPlaces(relativeDir)
        .flatMap((tsconfig) => [tsconfig, tsconfig.replace(/tsconfig\.json$/, 'jsconfig.json')])
        .find((file) => read(file) !== null);
      config = place === undefined ? null : loadTsconfig(place, { read, resolvePackage: () => null });
      configs.set(relativeDir, config);
    }
    return config;
  };
  return {
    targets(specifier: string, resolveDir: string): string[] {
      const relativeDir = path.relative(root, resolveDir);
      if (relativeDir.startsWith('..') || path.isAbsolute(relativeDir)) return [];
      const config = configOf(relativeDir.split(path.sep).join('/') || '.');
      if (config === null) return [];
      const mapped = pathsTargets(config, specifier);
      const all = config.dirs.baseUrl !== undefined ? [...mapped, `${config.dirs.baseUrl}/${specifier}`] : mapped;
      return all.map((target) => path.join(root, target));
    },
    forget: () => {
      configs.clear();
      texts.clear();
    },
  };
}

/** The absolute paths of a build's entry points, as the engine gives them (`{ in, out }`). */
function entryPaths(entryPoints: esbuild.BuildOptions['entryPoints']): string[] {
  const all = Array.isArray(entryPoints) ? entryPoints.map((entry) => (typeof entry === 'string' ? entry : entry.in)) : Object.values(entryPoints ?? {});
  return all.filter((entry) => path.isAbsolute(entry));
}

/**
 * Where an import leads out of what a module may bundle (`allowed`), before esbuild resolves it:
 * the real path of its place when its folder really lies outside, or of the file esbuild would
 * pick (the path itself, then with each of `extensions`, then `.js` rewritten to `.ts`, then a
 * folder's `index`, in esbuild's order) when that is a link leading out; null otherwise (esbuild
 * resolves as ever, and says what is missing). Told by the folders' listings (each listed once
 * until `forget`: one listing of a folder costs less than a stat of each name looked up in it,
 * and makes no object per name looked up); only a link has its real path taken.
 */
function linkLeading(extensions: readonly string[], allowed: (file: string) => boolean) {
  const listings = new Map<string, Map<string, fs.Dirent> | null>();
  const listingOf = (folder: string): Map<string, fs.Dirent> | null => {
    let listing = listings.get(folder);
    if (listing === undefined) {
      try {
        listing = new Map(fs.readdirSync(folder, { withFileTypes: true }).map((entry) => [entry.name, entry]));
      } catch {
        listing = null; // absent, or no folder: esbuild says what is missing
      }
      listings.set(folder, listing);
    }
    return listing;
  };
  /**
   * The real path of `folder`, walked down from `real` (a real folder: esbuild hands each import
   * the real folder of its importer) by the listings: a folder that is no link is where it is.
   */
  const realFolderOf = (folder: string, real: string): string | null => {
    let base = real;
    while (base !== folder && !folder.startsWith(base + path.sep)) {
      const above = path.dirname(base);
      if (above === base) return realPathOrNull(folder);
      base = above;
    }
    for (const part of base === folder ? [] : folder.slice(base.length + 1).split(path.sep)) {
      const entry = listingOf(base)?.get(part);
      if (entry?.isSymbolicLink()) return realPathOrNull(folder);
      if (!entry?.isDirectory()) return null;
      base = path.join(base, part);
    }
    return base;
  };
  /** What esbuild takes at `name` of `folder`: undefined for nothing it loads (none, a folder, a dangling link or one to a folder: it goes on), null for a file that is no link, else the link's real path. */
  const fileAt = (folder: string, listing: Map<string, fs.Dirent>, name: string): string | null | undefined => {
    const entry = listing.get(name);
    if (!entry || entry.isDirectory()) return undefined;
    if (!entry.isSymbolicLink()) return null;
    const file = path.join(folder, name);
    const target = fs.statSync(file, { throwIfNoEntry: false });
    return !target || target.isDirectory() ? undefined : (realPathOrNull(file) ?? undefined);
  };
  const outside = (led: string, real: string, index = false): string | null => {
    const folder = path.dirname(led);
    const base = path.basename(led);
    const realFolder = realFolderOf(folder, real);
    if (realFolder === null) return null;
    // esbuild would look in that folder and read its configs: where it really is decides.
    if (!allowed(realFolder)) return path.join(realFolder, base);
    const listing = listingOf(realFolder);
    if (listing === null) return null;
    let found = index ? undefined : fileAt(realFolder, listing, base);
    for (let next = 0; found === undefined && next < extensions.length; next += 1) found = fileAt(realFolder, listing, base + extensions[next]);
    const extension = path.extname(base);
    const rewrites = index ? undefined : TYPESCRIPT_REWRITES[extension];
    for (let next = 0; found === undefined && rewrites && next < rewrites.length; next += 1) found = fileAt(realFolder, listing, base.slice(0, base.length - extension.length) + rewrites[next]);
    if (found !== undefined) return found === null || allowed(found) ? null : found;
    const entry = index ? undefined : listing.get(base);
    // A folder (or a link to one): its index, in the folder it really is.
    return entry?.isDirectory() || entry?.isSymbolicLink() ? outside(path.join(realFolder, base, 'index'), realFolder, true) : null;
  };
  return {
    outside,
    forget: () => listings.clear(),
  };
}

function realPathOrNull(file: string): string | null {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return null;
  }
}
