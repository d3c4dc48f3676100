// `/m/<package>@<version>/(modules|styles|assets)/...`: compiled code, stylesheets and
// declared assets (README "Addresses"). Nothing is served that a manifest
// does not declare; a wrong version never answers the current content.
import type { HttpContext } from '../context.js';
import path from 'node:path';
import { contentType } from 'mime-types';
import { isTypeScriptSource } from '../../workspace/typescript-assets.js';
import type { OutputCache } from '../../outputs/output-cache.js';
import type { ServiceState } from '../../store/state.js';
import { parseOutputQuery } from '../../workspace/query.js';
import type { ModuleModel } from '../../workspace/model.js';
import { developmentVariant } from '../../workspace/variant.js';
import { indexWorkspace } from '../../workspace/workspace-index.js';
import { parseAddress, type Address } from '../address.js';
import type { AssetFiles } from '../../io/asset-files.js';
import type { AnswerCache, CachedAnswer } from '../answer-cache.js';
import { ServiceError } from '../errors.js';
import type { Readiness } from '../readiness.js';
import { sendOutput } from '../send-output.js';
import { isContentHash } from '../../outputs/content-hash.js';
import { answerOutput, describeAddress, findPackageVersion, outputAnswer } from '../output-answer.js';
import { parse as parseQuery } from 'node:querystring';
import { isSharedSubpath } from '../../workspace/shared-files.js';
import { serveSharedFile } from './shared-files.js';

export interface ModulesRouteDeps {
  readiness: Readiness;
  outputs: OutputCache;
  assets: AssetFiles;
  answers: AnswerCache;
}

export function modulesRoute(deps: ModulesRouteDeps) {
  return async function modules(ctx: HttpContext): Promise<void> {
    const address = parseAddress(ctx.path);
    if (address.kind === 'assets') return serveAsset(ctx, address, deps);

    const query = parseOutputQuery(new URLSearchParams(ctx.querystring));
    if (!query.ok) throw new ServiceError('OPTION_UNSUPPORTED', `${describeAddress(address)}: ${query.message}`);
    const { variant } = query;
    if (address.kind === 'modules' && isSharedSubpath(address.segments.join('/'))) return serveSharedFile(ctx, address, variant, deps);
    const answer = await answerOutput(ctx, address, variant, ctx.query.v, deps);
    sendOutput(ctx, answer.body, answer);
    deps.answers.remember(ctx.url, answer);
  };
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

/**
 * The answer of a pushed sheet's address (`stylesAddress(module, hash)`), made from what the push
 * knew: the module and the hash, not the address parsed back. The address's query is the
 * development query, whose variant is the browser's development one.
 */
export function pushedSheetAnswer(module: ModuleModel, hash: string, state: ServiceState, outputs: OutputCache): CachedAnswer | null {
  const address: Address = { kind: 'styles', packageName: module.package, version: module.version, segments: module.subpath.split('/') };
  const answer = outputAnswer(state, outputs, address, developmentVariant('browser'), hash);
  return answer instanceof ServiceError || !answer?.unchecked ? null : answer;
}

// A TypeScript source is text: the table's `video/mp2t` for `.ts` (an MPEG transport stream's
// name too, kept for one) would misname it, and a browser refuses to run text as a script, as it
// must (README "Bundling real code": such an asset makes its module invalid).
// The type is the extension's alone: `contentType` takes any argument holding a `/` for a type
// already made, so a declared asset in a folder (`img/bg.svg`) would be answered with its path as
// its type, which a browser under `nosniff` refuses, and a folder name outside Latin-1 would be no
// header value at all (README "Addresses"). A file with no extension is bytes.
const assetType = (file: string, content: Uint8Array): string => {
  if (isTypeScriptSource(file, content)) return 'text/plain; charset=utf-8';
  const extension = path.posix.extname(file);
  return (extension && contentType(extension)) || 'application/octet-stream';
};

// Why `file` is no declared asset of `module`. Its module.json unread (a FIFO, a directory) or
// invalid where it declares (not JSON, a refused "assets") declares nothing or less than it
// says: "declare it" would send the user to a manifest that may already, and the manifest's own
// problem is what to fix (README "Files that are not files").
function undeclaredAssetText(module: ModuleModel, file: string): string {
  const manifest = module.dir === '.' ? 'module.json' : `${module.dir}/module.json`;
  // The manifest as a whole (`"<file>" is a FIFO`, `<file> is not valid JSON`), or its "assets" member refused.
  const assetsUnknown = (message: string) => message.startsWith(`"${manifest}" is `) || message.startsWith(`${manifest} `) || message.startsWith(`${manifest}: "assets" must `);
  const unread = module.diagnostics.find((d) => d.kind === 'MANIFEST_INVALID' && d.file === manifest && assetsUnknown(d.message));
  if (unread) return `the assets of ${module.specifier} are not known while its module.json is invalid, so "${file}" is not served: ${unread.message}`;
  return `${module.specifier} does not declare the asset "${file}"${module.assets.length ? `; its assets are ${module.assets.join(', ')}` : ''}: declare it under "assets" in its module.json`;
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
    if (!module.assets.includes(file)) throw new ServiceError('OUTPUT_NOT_AVAILABLE', undeclaredAssetText(module, file));
    const asset = deps.assets.read(state.workspace.packages.find((p) => p.name === module.package)!.dir, `${module.dir}/${file}`, state.workspace.linkedDirs);
    if (!asset) throw new ServiceError('OUTPUT_NOT_AVAILABLE', `the asset "${file}" of ${module.specifier} is declared but ${module.dir}/${file} is missing, is no regular file (README "Files that are not files") or leaves its package`);
    sendOutput(ctx, asset.content, { type: assetType(file, asset.content), hash: asset.hash, anyOrigin: true, hashInTimeline: true });
    return;
  }
  throw new ServiceError('OUTPUT_NOT_AVAILABLE', `${describeAddress(address)} names no declared asset of ${address.packageName}`);
}
