// `/m/<package>@<version>/modules/.shared/<path>`: a shared file of a package, built alone, which
// the package's modules import instead of each bundling a copy (README "Shared files"). It is
// served as the modules that import it were built: their last builds of the variant name it.
import type { HttpContext } from '../context.js';
import type { OutputCache } from '../../outputs/output-cache.js';
import { buildDiagnostics, selectPackage } from '../../store/selectors.js';
import type { Variant } from '../../workspace/variant.js';
import { platformOf, variantKey } from '../../workspace/variant.js';
import { moduleSpecifier } from '../../workspace/specifiers.js';
import { indexWorkspace } from '../../workspace/workspace-index.js';
import { isBuildable } from '../../store/reducer.js';
import { isContentHash } from '../../outputs/content-hash.js';
import type { Address } from '../address.js';
import { ServiceError } from '../errors.js';
import type { Readiness } from '../readiness.js';
import { isCrossSiteRefused, sendOutput } from '../send-output.js';

export async function serveSharedFile(ctx: HttpContext, address: Address, variant: Variant, deps: { readiness: Readiness; outputs: OutputCache }): Promise<void> {
  const specifier = moduleSpecifier(address.packageName, address.segments.join('/'));
  const state = await deps.readiness.workspace({ kind: 'all' });
  const pkg = selectPackage(state, address.packageName);
  if (!pkg || pkg.version !== address.version) {
    throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${specifier} is no shared file of ${address.packageName}@${address.version}: addresses carry the current version of a package of the workspace`);
  }
  if (isCrossSiteRefused(ctx.req, variant.env === 'production')) {
    throw new ServiceError('CROSS_SITE_REFUSED', `development output of ${specifier} is not served to other sites; load env=production output instead`);
  }
  // Every module of the package that runs there, built from the current sources: those that import it name its bytes.
  const key = variantKey(variant);
  const modules = (indexWorkspace(state.workspace).modulesOf.get(address.packageName) ?? []).filter((module) => isBuildable(module) && module.platforms.includes(platformOf(variant.target)));
  const built = await Promise.all(modules.map((module) => deps.readiness.variant(module.specifier, key).catch((error: unknown) => (error instanceof ServiceError ? null : Promise.reject(error)))));
  const named = new Set<string>();
  built.forEach((result, index) => {
    const chunk = result?.record.outputs?.chunks?.[specifier];
    if (chunk && buildDiagnostics(modules[index]!, result!.record, result!.state.workspace).length === 0) named.add(chunk.hash);
  });
  const token = ctx.query.v;
  let hash: string | undefined = isContentHash(token) && named.has(token) ? token : [...named][0];
  // `v=<hash>` names one content for ever: an earlier one still kept, in development only (README "Addresses").
  if (isContentHash(token) && token !== hash) {
    if (variant.env !== 'development' || !deps.outputs.get(token)) {
      throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${ctx.path}?v=${token} names an earlier build of ${specifier}, which is no longer kept: load the page again for the current address`);
    }
    hash = token;
  }
  if (hash === undefined) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `no valid module of ${address.packageName} imports the shared file ${specifier}`);
  const body = deps.outputs.get(hash);
  if (!body) throw new Error(`the output ${hash} of ${specifier} is missing from the output cache`);
  sendOutput(ctx, body, { type: 'text/javascript; charset=utf-8', hash, anyOrigin: variant.env === 'production', immutable: isContentHash(token) });
}
