// `/m/<package>@<version>/modules/.shared/<path>`: a shared file of a package, built alone, which
// the package's modules import instead of each bundling a copy (README "Shared files"). It is
// served as the modules that import it were built: their last builds of the variant name it.
import type { HttpContext } from '../context.js';
import type { OutputCache } from '../../outputs/output-cache.js';
import type { ServiceState } from '../../store/state.js';
import type { ModuleModel } from '../../workspace/model.js';
import { buildDiagnostics, selectOutputsMade } from '../../store/selectors.js';
import type { Variant } from '../../workspace/variant.js';
import { platformOf, variantKey } from '../../workspace/variant.js';
import { moduleSpecifier } from '../../workspace/specifiers.js';
import { indexWorkspace } from '../../workspace/workspace-index.js';
import { isBuildable } from '../../store/reducer.js';
import { isContentHash } from '../../outputs/content-hash.js';
import type { Address } from '../address.js';
import { ServiceError } from '../errors.js';
import type { Readiness } from '../readiness.js';
import { sendOutput } from '../send-output.js';
import { findPackageVersion, namedHash, refuseCrossSite } from '../output-answer.js';

export async function serveSharedFile(ctx: HttpContext, address: Address, variant: Variant, deps: { readiness: Readiness; outputs: OutputCache }): Promise<void> {
  const specifier = moduleSpecifier(address.packageName, address.segments.join('/'));
  const state = await deps.readiness.workspace({ kind: 'all' });
  findPackageVersion(state, address);
  refuseCrossSite(ctx, variant, specifier);
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
  const hash = namedHash(deps.outputs, ctx.path, specifier, variant, token, isContentHash(token) && named.has(token) ? token : [...named][0], (hash) => madeForSharedFile(state, modules, key, specifier, hash));
  if (hash instanceof ServiceError) throw hash;
  if (hash === undefined) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `no valid module of ${address.packageName} imports the shared file ${specifier}`);
  const body = deps.outputs.get(hash);
  if (!body) throw new Error(`the output ${hash} of ${specifier} is missing from the output cache`);
  sendOutput(ctx, body, { type: 'text/javascript; charset=utf-8', hash, anyOrigin: variant.env === 'production', immutable: isContentHash(token) });
}

// A shared file's earlier bytes are those a module of its package made for it in this run, as
// that file, in this variant: the output cache is shared by every module (README "Addresses").
function madeForSharedFile(state: ServiceState, modules: readonly ModuleModel[], key: string, specifier: string, hash: string): boolean {
  return modules.some((module) => selectOutputsMade(state, module.specifier, key).some((outputs) => outputs.chunks?.[specifier]?.hash === hash));
}
