// The push protocol between the service and the preview page (README "Preview and stylesheet
// push"), in one place: the messages `/events` sends, how a page names a module, and the
// addresses those messages and the preview carry. The browser runtime imports its types from
// here (a type-only import, erased when it is compiled), the service its functions.
import type { Diagnostic } from '../workspace/diagnostics.js';
import type { ModuleModel } from '../workspace/model.js';
import { DEVELOPMENT_QUERY } from '../workspace/query.js';

/** A diagnostic as the page receives it: the service's (its kind a plain string there), with the module it concerns. */
export interface PushDiagnostic extends Omit<Diagnostic, 'kind'> {
  kind: string;
  module?: string;
}

export type PushMessage =
  | { type: 'styles'; module: string; href: string }
  | { type: 'invalid'; module: string; diagnostics: PushDiagnostic[] }
  | { type: 'code'; module: string }
  | { type: 'valid'; module: string }
  | { type: 'warnings'; module: string; warnings: PushDiagnostic[] }
  // A declared asset of the module saved with new content, at its plain address: a page that
  // fetched that address without a version reloads (README "Preview and stylesheet push").
  | { type: 'asset'; module: string; href: string }
  // The workspace's own diagnostics (a broken core.json or package.json), which concern no module.
  | { type: 'workspace'; diagnostics: PushDiagnostic[] };

/**
 * The first message of every `/events` connection, before any `PushMessage`: which run of the
 * service speaks. The preview page is written with the same id (`core-page`), so a page whose first
 * connection reaches another run (the service restarted between the page's load and that
 * connection) knows it missed what changed meanwhile, as a page that reconnects does (README
 * "Preview and stylesheet push"). `seq` is the state's when the connection opened: a page written
 * from an earlier state may have missed a change told before it connected, and asks.
 */
export interface HelloMessage {
  type: 'hello';
  instance: string;
  seq: number;
}

/** What a page hears on `/events`: the greeting of the run, then the messages derived from the state. */
export type ChannelMessage = HelloMessage | PushMessage;

type Named = Pick<ModuleModel, 'package' | 'version' | 'subpath'>;

/** `<package>@<version>/<subpath>`: how pages name a module (`data-core-styles`, messages). */
export const moduleLabel = (module: Named): string => `${module.package}@${module.version}/${module.subpath}`;

/** The development address of a module's code; with `hash`, the immutable one naming that content. */
export const codeAddress = (module: Named, hash?: string): string =>
  `/m/${module.package}@${module.version}/modules/${module.subpath}?${DEVELOPMENT_QUERY}${hash ? `&v=${hash}` : ''}`;

/** The development address of a module's stylesheet; with `hash`, the immutable one naming that content. */
export const stylesAddress = (module: Named, hash?: string): string =>
  `/m/${module.package}@${module.version}/styles/${module.subpath}?${DEVELOPMENT_QUERY}${hash ? `&v=${hash}` : ''}`;

/** The content hash an address of `codeAddress` or `stylesAddress` names; null for a plain (or any other) address. */
export const addressHash = (address: string): string | null => (address.startsWith('/m/') ? (/&v=([A-Za-z0-9_-]+)$/.exec(address)?.[1] ?? null) : null);

/** The plain address of a declared asset of a module (`file` relative to its directory), each segment escaped. */
export const assetAddress = (module: Named, file: string): string =>
  `/m/${module.package}@${module.version}/assets/${[...module.subpath.split('/'), ...file.split('/')].map(encodeURIComponent).join('/')}`;
