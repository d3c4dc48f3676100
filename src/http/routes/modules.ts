// `/m/<package>@<version>/(modules|styles|assets)/...`: compiled code, stylesheets and
// declared assets (README "Addresses"). Nothing is served that a manifest
// does not declare; a wrong version never answers the current content.
import type { HttpContext } from '../context.js';
import { contentType } from 'mime-types';
import type { OutputCache } from '../../outputs/output-cache.js';
import { buildDiagnostics, selectAnswerable, selectPackage } from '../../store/selectors.js';
import type { ServiceState } from '../../store/state.js';
import type { ModuleModel } from '../../workspace/model.js';
import { parseOutputQuery } from '../../workspace/query.js';
import { platformOf, variantKey, type Variant } from '../../workspace/variant.js';
import { moduleSpecifier } from '../../workspace/specifiers.js';
import { indexWorkspace } from '../../workspace/workspace-index.js';
import { parseAddress, type Address } from '../address.js';
import type { AssetFiles } from '../../io/asset-files.js';
import type { AnswerCache, CachedAnswer } from '../answer-cache.js';
import { ServiceError, unbuildable } from '../errors.js';
import type { Readiness } from '../readiness.js';
import { isCrossSiteRefused, sendOutput } from '../send-output.js';
import type { CheckScope } from '../../io/freshness.js';
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
    const scope: CheckScope = { kind: 'variant', module: specifier, variant: variantKey(variant) };
    const read = await deps.readiness.workspace(scope);
    // A wrong version looks for no file (README "Exports and sources": found on demand).
    findPackageVersion(read, address);
    // Before a deep import is looked for: a refused cross-site request records nothing in the state.
    refuseCrossSite(ctx, variant, specifier);
    const state = await deps.readiness.deepModule(read, specifier, scope.variant);
    findModule(state, address);
    const token = ctx.query.v;
    let answer = outputAnswer(state, deps.outputs, address, variant, token);
    if (answer === null) {
      const built = await deps.readiness.variant(specifier, scope.variant);
      if (!built) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${specifier} is no longer declared by the workspace`);
      answer = outputAnswer(built.state, deps.outputs, address, variant, token);
    }
    if (answer === null) throw new Error(`the build of ${specifier} was answerable and is not`);
    if (answer instanceof ServiceError) throw answer;
    sendOutput(ctx, answer.body, answer);
    deps.answers.remember(ctx.url, answer);
  };
}

/**
 * The one rule of an output's answer (README "Addresses"), from the state alone: the answer,
 * the coded error, or null while the state has no answerable build of the variant yet (the
 * route then waits for one). The route and the answer cache both ask it, so a refusal added
 * here holds for both (ARCHITECTURE.md "One HTTP path").
 */
export function outputAnswer(state: ServiceState, outputs: OutputCache, address: Address, variant: Variant, token: unknown): CachedAnswer | ServiceError | null {
  if (address.kind === 'assets') throw new Error('an asset has no build: serveAsset answers it');
  if (!state.workspaceRead || state.workspaceStale) return null;
  const specifier = moduleSpecifier(address.packageName, address.segments.join('/'));
  const key = variantKey(variant);
  let module: ModuleModel;
  try {
    module = findModule(state, address);
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  if (!module.platforms.includes(platformOf(variant.target))) {
    return new ServiceError(
      'CONDITIONAL_NOT_FOUND',
      `${specifier} declares the platforms ${JSON.stringify(module.platforms)}; target=${variant.target} needs "${platformOf(variant.target)}": add it to "platforms" in its module.json if the module really runs there`,
    );
  }
  if (module.diagnostics.length > 0) return unbuildable(specifier, module.diagnostics);
  const entry = state.builds[specifier]?.variants[key];
  if (entry?.status !== 'done' || !entry.last || !selectAnswerable(state, specifier, key)) return null;
  const record = entry.last;
  const diagnostics = buildDiagnostics(module, record, state.workspace);
  if (diagnostics.length > 0 || !record.outputs) {
    return new ServiceError('BUILD_FAILED', `the build of ${specifier} failed with ${diagnostics.length} diagnostic${diagnostics.length === 1 ? '' : 's'}`, { diagnostics });
  }
  const output = address.kind === 'modules' ? record.outputs.code : record.outputs.styles;
  if (!output) return new ServiceError('OUTPUT_NOT_AVAILABLE', `${specifier} has no stylesheet: no stylesheet is imported from its sources`);
  const hash = namedHash(outputs, address, variant, token, output.hash);
  if (hash instanceof ServiceError) return hash;
  const body = outputs.get(hash);
  if (!body) throw new Error(`the output ${hash} of ${specifier} is missing from the output cache`);
  // Development bytes named by the hash of the last build owe no check against the disk: no
  // change can make them stale (README "Addresses"); the answer cache serves them at once.
  const unchecked = variant.env === 'development' && token === output.hash;
  const scope: CheckScope = { kind: 'variant', module: specifier, variant: key };
  return { type: TYPES[address.kind], hash, anyOrigin: variant.env === 'production', immutable: isContentHash(token), body, state, scope, unchecked };
}

/**
 * `v=<hash>` names one content for ever: the current one, or (development only: no other
 * origin may read it) an earlier one still kept; never other bytes (README "Addresses").
 */
function namedHash(outputs: OutputCache, address: Address, variant: Variant, token: unknown, current: string): string | ServiceError {
  if (!isContentHash(token) || token === current) return current;
  if (variant.env !== 'development' || !outputs.get(token)) {
    const specifier = moduleSpecifier(address.packageName, address.segments.join('/'));
    return new ServiceError('OUTPUT_NOT_AVAILABLE', `${describe(address)}?v=${token} names an earlier build of ${specifier}, which is no longer kept: load the page again for the current address`);
  }
  return token;
}

/**
 * The answer the answer cache may give a request the route has not answered yet: an address
 * naming by hash what the state's last build made for it, which owes no check against the
 * disk. Such are the fetch a page makes right after a stylesheet push, and every module a
 * preview page loads (its import map names them so). Null for any other request: the route
 * answers it, errors included.
 */
export function uncheckedAnswer(target: string, state: ServiceState, outputs: OutputCache): CachedAnswer | null {
  // Read as Koa reads it for the route: the path before `?`, the query by `node:querystring`.
  const at = target.indexOf('?');
  if (at === -1) return null;
  const path = target.slice(0, at);
  const querystring = target.slice(at + 1);
  const token = parseQuery(querystring).v;
  if (!isContentHash(token)) return null;
  let address: Address;
  try {
    address = parseAddress(path);
  } catch {
    return null;
  }
  const query = parseOutputQuery(new URLSearchParams(querystring));
  if (!query.ok || address.kind === 'assets' || (address.kind === 'modules' && isSharedSubpath(address.segments.join('/')))) return null;
  const answer = outputAnswer(state, outputs, address, query.variant, token);
  return answer instanceof ServiceError || !answer?.unchecked ? null : answer;
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
