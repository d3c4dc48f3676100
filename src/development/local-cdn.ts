// The service as its own CDN (README "The local CDN"), with `CORE_CDN_ORIGIN=local`:
//   /cdn/<package>@<version>[/<subpath>]
// A workspace package answers the production output of its module (the bytes of
// `/m/...?env=production`); a package installed in node_modules answers the entry of that
// subpath compiled for browsers, built once per version and subpath and kept. Both are named
// by version: immutable, and loadable by any origin like every production output.
import { createRequire } from 'node:module';
import type { ExtensionHost } from '../extension.js';
import type { HttpContext } from '../http/context.js';
import { ServiceError } from '../http/errors.js';
import { sendOutput } from '../http/send-output.js';
import { bundleInstalled, type InstalledBundle } from '../bundlers/installed-bundle.js';
import { contentHash } from '../outputs/content-hash.js';
import { buildDiagnostics } from '../store/selectors.js';
import { commonJsExportNames, entryOf, findInstalled, type InstalledPackage } from '../streams/installed-packages.js';
import { moduleSpecifier, parseBareSpecifier, ROOT_SUBPATH } from '../workspace/specifiers.js';
import { productionVariant, variantKey } from '../workspace/variant.js';
import { indexWorkspace } from '../workspace/workspace-index.js';
import { isSharedSubpath } from '../workspace/shared-files.js';
import { serveSharedFile } from '../http/routes/shared-files.js';

export const LOCAL_CDN = 'local';
export const LOCAL_CDN_PREFIX = '/cdn';

export const localCdnAddress = (name: string, version: string, subpath: string): string =>
  `${LOCAL_CDN_PREFIX}/${name}@${version}${subpath && subpath !== ROOT_SUBPATH ? `/${subpath}` : ''}`;

export interface LocalCdn {
  /** Adds to `imports` what the installed packages it maps import, transitively; returns the specifiers it could not map. */
  complete(imports: Record<string, string>): Promise<string[]>;
}

export function registerLocalCdn(host: ExtensionHost): LocalCdn {
  const builds = new Map<string, Promise<InstalledBundle>>();
  // Installed copies met while completing import maps: a dependency nested in another
  // package's node_modules is served from there.
  const known = new Map<string, InstalledPackage>();

  const installed = (name: string, version: string): InstalledPackage | null => {
    const seen = known.get(`${name}@${version}`);
    if (seen) return seen;
    const dirs = [host.root, ...host.getState().workspace.packages.map((pkg) => `${host.root}/${pkg.dir}`)];
    for (const dir of dirs) {
      const found = findInstalled(name, dir);
      if (found && found.version === version) {
        known.set(`${name}@${version}`, found);
        return found;
      }
    }
    return null;
  };

  const bundle = (pkg: InstalledPackage, subpath: string): Promise<InstalledBundle> => {
    const key = `${pkg.name}@${pkg.version}/${subpath}`;
    let built = builds.get(key);
    if (!built) {
      const entry = entryOf(pkg, subpath);
      built = entry === null
        ? Promise.reject(new ServiceError('OUTPUT_NOT_AVAILABLE', `${pkg.name}@${pkg.version} exports no "${subpath === '' ? '.' : `./${subpath}`}"`))
        : bundleInstalled(entry, (file) => commonJsExportNames(file, (f) => createRequire(f)(f)));
      builds.set(key, built);
      built.catch(() => builds.delete(key)); // a failure is not kept: the next request tries again
    }
    return built;
  };

  host.router.get(`${LOCAL_CDN_PREFIX}/*rest`, async function localCdn(ctx: HttpContext) {
    const rest = decodeURIComponent(ctx.path.slice(LOCAL_CDN_PREFIX.length + 1));
    const scoped = rest.startsWith('@');
    const parts = rest.split('/');
    const nameAtVersion = scoped ? `${parts[0]}/${parts[1] ?? ''}` : parts[0]!;
    const at = nameAtVersion.lastIndexOf('@');
    if (at <= 0) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${ctx.path} names no package: local CDN addresses are /cdn/<package>@<version>[/<subpath>]`);
    const name = nameAtVersion.slice(0, at);
    const version = nameAtVersion.slice(at + 1);
    const subpath = parts.slice(scoped ? 2 : 1).join('/');
    if (subpath.split('/').some((segment) => segment === '..' || segment === '.')) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${ctx.path} leaves its package`);

    const state = await host.readiness.workspace();
    const index = indexWorkspace(state.workspace);
    const pkg = index.packages.get(name);
    if (pkg) {
      if (pkg.version !== version) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${name} is at version ${pkg.version}, not ${version}`);
      // A shared file of the package, as its production modules import it (README "Shared files").
      if (isSharedSubpath(subpath)) return serveSharedFile(ctx, { kind: 'modules', packageName: name, version, segments: subpath.split('/') }, productionVariant('browser'), host);
      const specifier = moduleSpecifier(name, subpath);
      const module = index.modules.get(specifier);
      if (!module) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${specifier} is not a public module of ${name}`);
      const built = await host.readiness.variant(specifier, variantKey(productionVariant('browser')));
      if (!built) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${specifier} is no longer declared by the workspace`);
      const diagnostics = buildDiagnostics(module, built.record, built.state.workspace);
      if (diagnostics.length > 0 || !built.record.outputs) throw new ServiceError('BUILD_FAILED', `the production build of ${specifier} failed`, { diagnostics });
      const body = host.outputs.get(built.record.outputs.code.hash)!;
      sendOutput(ctx, body, { type: 'text/javascript; charset=utf-8', hash: built.record.outputs.code.hash, anyOrigin: true });
      return;
    }
    const copy = installed(name, version);
    if (!copy) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${name}@${version} is not installed in the workspace's node_modules`);
    const { code } = await bundle(copy, subpath);
    sendOutput(ctx, Buffer.from(code), { type: 'text/javascript; charset=utf-8', hash: contentHash(Buffer.from(code)), anyOrigin: true, immutable: true });
  });

  return {
    async complete(imports) {
      const unresolved: string[] = [];
      const queue = Object.entries(imports).filter(([, address]) => address.startsWith(`${LOCAL_CDN_PREFIX}/`));
      const workspace = indexWorkspace(host.getState().workspace);
      while (queue.length > 0) {
        const [specifier, address] = queue.shift()!;
        const bare = parseBareSpecifier(specifier);
        if (!bare || workspace.packages.has(bare.packageName)) continue;
        const version = /@([^@/]+)(?:\/|$)/.exec(address.slice(LOCAL_CDN_PREFIX.length + 1 + (bare.packageName.startsWith('@') ? 1 : 0)))?.[1];
        const copy = version ? installed(bare.packageName, version) : null;
        if (!copy) continue;
        let built: InstalledBundle;
        try {
          built = await bundle(copy, bare.subpath);
        } catch {
          continue; // the page meets it, and the overlay says why
        }
        for (const imported of built.imports) {
          if (imported in imports) continue;
          const target = parseBareSpecifier(imported);
          if (!target) continue;
          const own = workspace.packages.get(target.packageName);
          const dependency = own ? null : findInstalled(target.packageName, copy.dir);
          if (!own && !dependency) {
            unresolved.push(imported);
            continue;
          }
          if (dependency) known.set(`${dependency.name}@${dependency.version}`, dependency);
          imports[imported] = localCdnAddress(target.packageName, own ? own.version : dependency!.version, target.subpath);
          queue.push([imported, imports[imported]!]);
        }
      }
      return unresolved;
    },
  };
}
