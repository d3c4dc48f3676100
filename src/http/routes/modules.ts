// `/m/<package>@<version>/(modules|styles|assets)/...`: compiled code, stylesheets and
// declared assets (README "Addresses"). Nothing is served that a manifest
// does not declare; a wrong version never answers the current content.
import type { HttpContext } from '../context.js';
import { contentType } from 'mime-types';
import type { OutputCache } from '../../outputs/output-cache.js';
import { buildDiagnostics, selectPackage } from '../../store/selectors.js';
import type { ServiceState } from '../../store/state.js';
import type { ModuleModel } from '../../workspace/model.js';
import { parseOutputQuery } from '../../workspace/query.js';
import { platformOf, variantKey, type Variant } from '../../workspace/variant.js';
import { moduleSpecifier } from '../../workspace/specifiers.js';
import { indexWorkspace } from '../../workspace/workspace-index.js';
import { parseAddress, type Address } from '../address.js';
import type { AssetFiles } from '../../streams/asset-files.js';
import type { AnswerCache, CachedAnswer } from '../answer-cache.js';
import { ServiceError, unbuildable } from '../errors.js';
import type { Readiness } from '../readiness.js';
import { isCrossSiteRefused, sendOutput } from '../send-output.js';
import type { CheckScope } from '../../streams/freshness.js';
import { isContentHash } from '../../outputs/content-hash.js';
import { parse as parseQuery } from 'node:querystring';
import { isSharedSubpath } from '../../workspace/shared-files.js';
import { serveSharedFile } from './shared-files.js';

export interface ModulesRouteDeps {
  readiness: Readiness;
  outputs: OutputCache;
  assets: AssetFiles;
  answers: AnswerCache;
}

const TYPES = { modules: 'text/javascript; charset=utf-8', styles: 'text/css; charset=utf-8' } as const;

export function modulesRoute(deps: ModulesRouteDeps) {
  return async function modules(ctx: HttpContext): Promise<void> {
    const address = parseAddress(ctx.path);
    if (address.kind === 'assets') return serveAsset(ctx, address, deps);

    const query = parseOutputQuery(new URLSearchParams(ctx.querystring));
    if (!query.ok) throw new ServiceError('OPTION_UNSUPPORTED', `${describe(address)}: ${query.message}`);
    const { variant } = query;
    if (address.kind === 'modules' && isSharedSubpath(address.segments.join('/'))) return serveSharedFile(ctx, address, variant, deps);
    const specifier = moduleSpecifier(address.packageName, address.segments.join('/'));
    const key = variantKey(variant);
    const scope: CheckScope = { kind: 'variant', module: specifier, variant: key };

    // An address naming the last build's bytes is answered before Koa, by the answer cache
    // (`lastBuildAnswer`); one it hands on here (refused, or the state moved on) is checked.
    const checked = deps.answers.checked(ctx.req);
    const read = await deps.readiness.workspace(scope, checked);
    // A wrong version looks for no file (README "Exports and sources": found on demand).
    findPackageVersion(read, address);
    const state = await deps.readiness.deepModule(read, specifier, key);
    const module = findModule(state, address);
    refuseCrossSite(ctx, variant, specifier);
    if (!module.platforms.includes(platformOf(variant.target))) {
      throw new ServiceError(
        'CONDITIONAL_NOT_FOUND',
        `${specifier} declares the platforms ${JSON.stringify(module.platforms)}; target=${variant.target} needs "${platformOf(variant.target)}": add it to "platforms" in its module.json if the module really runs there`,
      );
    }
    if (module.diagnostics.length > 0) {
      throw unbuildable(specifier, module.diagnostics);
    }

    const built = await deps.readiness.variant(specifier, key);
    if (!built) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${specifier} is no longer declared by the workspace`);
    const current = indexWorkspace(built.state.workspace).modules.get(specifier) ?? module;
    const diagnostics = buildDiagnostics(current, built.record, built.state.workspace);
    if (diagnostics.length > 0 || !built.record.outputs) {
      throw new ServiceError('BUILD_FAILED', `the build of ${specifier} failed with ${diagnostics.length} diagnostic${diagnostics.length === 1 ? '' : 's'}`, { diagnostics });
    }
    const output = address.kind === 'modules' ? built.record.outputs.code : built.record.outputs.styles;
    if (!output) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${specifier} has no stylesheet: no stylesheet is imported from its sources`);
    // `v=<hash>` names one content for ever: the current one, or (development only: no other
    // origin may read it) an earlier one still kept; never other bytes (README "Addresses").
    const token = ctx.query.v;
    let hash = output.hash;
    if (isContentHash(token) && token !== output.hash) {
      if (variant.env !== 'development' || !deps.outputs.get(token)) {
        throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${describe(address)}?v=${token} names an earlier build of ${specifier}, which is no longer kept: load the page again for the current address`);
      }
      hash = token;
    }
    const body = deps.outputs.get(hash);
    if (!body) throw new Error(`the output ${hash} of ${specifier} is missing from the output cache`);
    answerWith(ctx, deps, { type: TYPES[address.kind], hash, anyOrigin: variant.env === 'production', immutable: isContentHash(token), body, state: built.state, scope });
  };
}

/** Sends the answer and keeps it for the same address while the state stays its state (the answer cache checks its scope first, unless it owes no check). */
function answerWith(ctx: HttpContext, deps: ModulesRouteDeps, answer: CachedAnswer): void {
  sendOutput(ctx, answer.body, answer);
  deps.answers.remember(ctx.req.url ?? '', answer);
}

/**
 * The answer to a development address naming by hash what the state's last build made for
 * it: its bytes are what the request names and no change on disk can make them stale, so it
 * owes no check against the disk (README "Addresses"). Null for any other. Such are the fetch
 * a page makes right after a stylesheet push, and every module a preview page loads (its
 * import map names them so).
 */
export function lastBuildAnswer(state: ServiceState, outputs: OutputCache, address: Address, variant: Variant, token: unknown): CachedAnswer | null {
  if (variant.env !== 'development' || address.kind === 'assets') return null;
  const specifier = moduleSpecifier(address.packageName, address.segments.join('/'));
  const key = variantKey(variant);
  const named = lastBuiltAs(state, address, specifier, variant, key, token);
  const body = named === null ? undefined : outputs.get(named);
  if (named === null || !body) return null;
  return { type: TYPES[address.kind], hash: named, anyOrigin: false, immutable: true, body, state, scope: { kind: 'variant', module: specifier, variant: key }, unchecked: true };
}

/** `lastBuildAnswer` of a request target, read as Koa and the route read it; null for any target the route would answer otherwise. */
export function lastBuildAnswerOf(target: string, state: ServiceState, outputs: OutputCache): CachedAnswer | null {
  const at = target.indexOf('?');
  const pathname = at === -1 ? target : target.slice(0, at);
  if (!pathname.startsWith('/m/') || at === -1) return null;
  const querystring = target.slice(at + 1);
  let address: Address;
  try {
    address = parseAddress(pathname);
  } catch {
    return null;
  }
  const query = parseOutputQuery(new URLSearchParams(querystring));
  return query.ok ? lastBuildAnswer(state, outputs, address, query.variant, parseQuery(querystring).v) : null;
}

/**
 * The output `token` names when it is what the state's last build of the variant made for
 * this address (the package at this version, the module declared for the variant's platform,
 * its build valid): `token` then names the current bytes, not an earlier build's.
 */
function lastBuiltAs(state: ServiceState, address: Address, specifier: string, variant: Variant, key: string, token: unknown): string | null {
  if (!isContentHash(token) || !state.workspaceRead || state.workspaceStale) return null;
  if (selectPackage(state, address.packageName)?.version !== address.version) return null;
  const module = indexWorkspace(state.workspace).modules.get(specifier);
  if (!module || module.diagnostics.length > 0 || !module.platforms.includes(platformOf(variant.target))) return null;
  const record = state.builds[specifier]?.variants[key]?.last;
  const output = address.kind === 'modules' ? record?.outputs?.code : record?.outputs?.styles;
  if (!record || output?.hash !== token || buildDiagnostics(module, record, state.workspace).length > 0) return null;
  return token;
}

const describe = (address: Address) => `/m/${address.packageName}@${address.version}/${address.kind}/${address.segments.join('/')}`;

function findPackageVersion(state: ServiceState, address: Address) {
  const pkg = selectPackage(state, address.packageName);
  if (!pkg) {
    const broken = state.workspace.diagnostics.length > 0 ? ` (the workspace has ${state.workspace.diagnostics.length} manifest problem${state.workspace.diagnostics.length === 1 ? '' : 's'}: see /state)` : '';
    throw new ServiceError('OUTPUT_NOT_AVAILABLE', `there is no package ${address.packageName} in the workspace${broken}`);
  }
  if (pkg.version !== address.version) {
    throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${address.packageName} is at version ${pkg.version}, not ${address.version}: addresses carry the current version`);
  }
  return pkg;
}

function findModule(state: ServiceState, address: Address): ModuleModel {
  findPackageVersion(state, address);
  const subpath = address.segments.join('/');
  const module = indexWorkspace(state.workspace).modules.get(moduleSpecifier(address.packageName, subpath));
  if (!module) {
    const known = (indexWorkspace(state.workspace).modulesOf.get(address.packageName) ?? []).map((m) => m.subpath);
    throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${address.packageName} declares no module "${subpath}"${known.length ? `; its modules are ${known.join(', ')}` : ''}`);
  }
  return module;
}

function refuseCrossSite(ctx: HttpContext, variant: Variant, specifier: string) {
  if (isCrossSiteRefused(ctx.req, variant.env === 'production')) {
    throw new ServiceError('CROSS_SITE_REFUSED', `development output of ${specifier} is not served to other sites; load env=production output instead`);
  }
}

async function serveAsset(ctx: HttpContext, address: Address, deps: ModulesRouteDeps) {
  // The query of an asset address is ignored (README "Addresses"): real elements fetch their
  // declared files with one (`suggestions.html?q=oct`), and it never widens what is served.
  const state = await deps.readiness.workspace();
  findPackageVersion(state, address);
  // The longest declared subpath that starts the address; the rest must be a declared asset.
  const modules = indexWorkspace(state.workspace).modulesOf.get(address.packageName) ?? [];
  for (let split = address.segments.length - 1; split >= 1; split -= 1) {
    const subpath = address.segments.slice(0, split).join('/');
    const module = modules.find((m) => m.subpath === subpath);
    if (!module) continue;
    const file = address.segments.slice(split).join('/');
    if (!module.assets.includes(file)) {
      throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${module.specifier} does not declare the asset "${file}"${module.assets.length ? `; its assets are ${module.assets.join(', ')}` : ''}: declare it under "assets" in its module.json`);
    }
    const asset = deps.assets.read(state.workspace.packages.find((p) => p.name === module.package)!.dir, `${module.dir}/${file}`);
    if (!asset) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `the asset "${file}" of ${module.specifier} is declared but ${module.dir}/${file} is missing or leaves its package`);
    sendOutput(ctx, asset.content, { type: contentType(file) || 'application/octet-stream', hash: asset.hash, anyOrigin: true });
    return;
  }
  throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${describe(address)} names no declared asset of ${address.packageName}`);
}
