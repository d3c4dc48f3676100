// The one rule of an output's answer (README "Addresses"): what `/m/` answers for a module's
// code or stylesheet, what the answer cache repeats, what a shared file and the local CDN's
// workspace packages answer (README "Shared files", "The local CDN"). Each refusal is written
// once here, so it holds for every address that answers an output.
import type { OutputCache } from '../outputs/output-cache.js';
import { selectAnswerable, selectBuildDiagnostics, selectOutputsMade, selectPackage } from '../store/selectors.js';
import type { ServiceState } from '../store/state.js';
import type { ModuleModel, PackageModel } from '../workspace/model.js';
import { platformOf, variantKey, type Variant } from '../workspace/variant.js';
import { moduleSpecifier } from '../workspace/specifiers.js';
import { indexWorkspace } from '../workspace/workspace-index.js';
import { unreadPackageDiagnostics, unreadPackageReason } from '../workspace/unread-packages.js';
import type { CheckScope } from '../io/freshness.js';
import { isContentHash } from '../outputs/content-hash.js';
import type { Address } from './address.js';
import { checkedByCache, type CachedAnswer } from './answer-cache.js';
import type { HttpContext } from './context.js';
import { ServiceError, unbuildable } from './errors.js';
import type { Readiness } from './readiness.js';
import { isCrossSiteRefused } from './send-output.js';

const TYPES = { modules: 'text/javascript; charset=utf-8', styles: 'text/css; charset=utf-8' } as const;

export const describeAddress = (address: Address): string => `/m/${address.packageName}@${address.version}/${address.kind}/${address.segments.join('/')}`;

/**
 * The answer to a request for a module's output, waiting as long as the state has no answerable
 * build of the variant (the request then asks for one).
 */
export async function answerOutput(ctx: HttpContext, address: Address, variant: Variant, token: unknown, deps: { readiness: Readiness; outputs: OutputCache }): Promise<CachedAnswer> {
  const specifier = moduleSpecifier(address.packageName, address.segments.join('/'));
  const scope: CheckScope = { kind: 'variant', module: specifier, variant: variantKey(variant) };
  const read = await deps.readiness.workspace(scope, checkedByCache(ctx.req));
  // A wrong version looks for no file (README "Exports and sources": found on demand).
  findPackageVersion(read, address);
  // Before a deep import is looked for: a refused cross-site request records nothing in the state.
  refuseCrossSite(ctx, variant, specifier);
  const state = await deps.readiness.deepModule(read, specifier, scope.variant);
  findModule(state, address);
  let answer = outputAnswer(state, deps.outputs, address, variant, token);
  if (answer === null) {
    const built = await deps.readiness.variant(specifier, scope.variant);
    if (!built) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${specifier} is no longer declared by the workspace`);
    answer = outputAnswer(built.state, deps.outputs, address, variant, token);
  }
  if (answer === null) throw new Error(`the build of ${specifier} was answerable and is not`);
  if (answer instanceof ServiceError) throw answer;
  return answer;
}

/**
 * The answer from the state alone: the answer, the coded error, or null while the state has no
 * answerable build of the variant yet (the route then waits for one). The route and the answer
 * cache both ask it, so a refusal added here holds for both (ARCHITECTURE.md "One HTTP path").
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
  const named = namedBytesAnswer(state, outputs, address, variant, token);
  if (named) return named;
  if (module.diagnostics.length > 0) return unbuildable(specifier, module.diagnostics);
  const entry = state.builds[specifier]?.variants[key];
  if (entry?.status !== 'done' || !entry.last || !selectAnswerable(state, specifier, key)) return null;
  const record = entry.last;
  // A build that succeeded but names what another module does not export has a diagnostic too: no page links it.
  const diagnostics = selectBuildDiagnostics(state, module, record);
  if (diagnostics.length > 0 || !record.outputs) {
    return new ServiceError('BUILD_FAILED', `the build of ${specifier} failed with ${diagnostics.length} diagnostic${diagnostics.length === 1 ? '' : 's'}`, { diagnostics });
  }
  const output = address.kind === 'modules' ? record.outputs.code : record.outputs.styles;
  if (!output) return new ServiceError('OUTPUT_NOT_AVAILABLE', `${specifier} has no stylesheet: no stylesheet is imported from its sources`);
  const hash = namedHash(outputs, describeAddress(address), specifier, variant, token, output.hash, (named) => madeForAddress(state, specifier, key, address.kind, named));
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
 * The answer of an address whose `v=<hash>` names bytes the service holds for it, whatever the
 * module's judgement now; null for any other address. Such an address was answered `immutable`
 * (a browser keeps it for a year and asks nothing on a reload), so it never answers otherwise for
 * those bytes: a module judged invalid since (a build that fails, a name another module no longer
 * exports, a manifest problem) is refused at its plain address, in `/state` and on the pages the
 * service writes after it, not at the addresses of bytes it served (README "Addresses").
 * Development keeps earlier bytes (`namedHash`); production only those of the last build, once
 * it is answerable (an edit found by the check makes it no longer the last: that waits for the build).
 */
function namedBytesAnswer(state: ServiceState, outputs: OutputCache, address: Address, variant: Variant, token: unknown): CachedAnswer | null {
  if (!isContentHash(token) || address.kind === 'assets') return null;
  const specifier = moduleSpecifier(address.packageName, address.segments.join('/'));
  const key = variantKey(variant);
  const entry = state.builds[specifier]?.variants[key];
  const last = entry?.last?.outputs;
  const current = address.kind === 'modules' ? last?.code.hash : last?.styles?.hash;
  if (variant.env !== 'development' && (token !== current || entry?.status !== 'done' || !selectAnswerable(state, specifier, key))) return null;
  // The cache is shared by every module and variant: bytes another one made are not this address's.
  if (!madeForAddress(state, specifier, key, address.kind, token)) return null;
  const body = outputs.get(token);
  if (!body) return null;
  const scope: CheckScope = { kind: 'variant', module: specifier, variant: key };
  // The last build's development bytes owe no check against the disk, as below.
  return { type: TYPES[address.kind], hash: token, anyOrigin: variant.env === 'production', immutable: true, body, state, scope, unchecked: variant.env === 'development' && token === current };
}

/** Whether the variant's builds in this run made `hash` as the output of `kind` (its code, its sheet), under any declaration of the module. */
function madeForAddress(state: ServiceState, specifier: string, key: string, kind: Address['kind'], hash: string): boolean {
  for (const outputs of selectOutputsMade(state, specifier, key)) {
    if ((kind === 'modules' ? outputs?.code.hash : kind === 'styles' ? outputs?.styles?.hash : undefined) === hash) return true;
  }
  return false;
}

/**
 * `v=<hash>` names one content for ever: the current one, or (development only: no other
 * origin may read it) an earlier one still kept that `madeHere` says was made for this address;
 * never other bytes (README "Addresses"): the output cache is shared by every module and variant.
 * Without such a token, `current` (undefined when there is none). `shown`: the requested path.
 */
export function namedHash<Current extends string | undefined>(outputs: OutputCache, shown: string, specifier: string, variant: Variant, token: unknown, current: Current, madeHere: (hash: string) => boolean): Current | string | ServiceError {
  if (!isContentHash(token) || token === current) return current;
  if (variant.env !== 'development' || !madeHere(token) || !outputs.get(token)) {
    return new ServiceError('OUTPUT_NOT_AVAILABLE', `${shown}?v=${token} names an earlier build of ${specifier}, which is no longer kept: load the page again for the current address`);
  }
  return token;
}

/** The package the address names, at the version it names. */
export function findPackageVersion(state: ServiceState, address: Pick<Address, 'packageName' | 'version'>): PackageModel {
  const pkg = selectPackage(state, address.packageName);
  if (!pkg) {
    // README "Workspaces": a package whose package.json is broken answers its problem, at any version.
    const packageOwner = indexWorkspace(state.workspace).packageTable.ofName(address.packageName);
    if (packageOwner.kind === 'unread') {
      const { package: unread, named } = packageOwner;
      const diagnostics = unreadPackageDiagnostics(state.workspace, unread);
      if (named) throw new ServiceError('BUILD_FAILED', `${address.packageName}@${address.version} cannot be answered: ${unreadPackageReason(unread, address.packageName)}`, { diagnostics });
      throw new ServiceError('OUTPUT_NOT_AVAILABLE', `there is no package ${address.packageName} in the workspace; ${unreadPackageReason(unread, address.packageName)}`, { diagnostics });
    }
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

/** Development output is not read by other sites (README "Addresses"). */
export function refuseCrossSite(ctx: HttpContext, variant: Variant, specifier: string): void {
  if (isCrossSiteRefused(ctx.req, variant.env === 'production')) {
    throw new ServiceError('CROSS_SITE_REFUSED', `development output of ${specifier} is not served to other sites; load env=production output instead`);
  }
}
