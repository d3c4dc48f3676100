// The bundled preview (README "The bundled preview"): the same page as `/preview/` with its
// development modules joined into one script and its stylesheets into one sheet, for pages of
// many modules, where a browser's own work per module and per sheet is most of a reload.
// `planPageBundle` is pure over the preview and the state; `createPageBundles` keeps the last
// few bundles, so the page and its two files agree and an earlier address keeps its bytes.
import { catchError, defer, distinctUntilChanged, EMPTY, filter, switchMap, type Observable, type Subscription } from 'rxjs';
import { bundlePage, bundlePageMaps, joinedFiles, sheetPartsOf, type MapKind, type PageBundleInput, type PageBundleMaps } from '../bundlers/page-bundle.js';
import type { JoinFiles } from '../bundlers/join-files.js';
import { createJoinFiles } from '../io/join-directory.js';
import type { JoinedPages } from '../io/joined-pages.js';
import { contentHash } from '../outputs/content-hash.js';
import { addressHash, stylesAddress } from '../protocol/push.js';
import type { OutputCache } from '../outputs/output-cache.js';
import { defaultVariantKey, selectSettled } from '../store/selectors.js';
import type { BuildRecord, ServiceState } from '../store/state.js';
import { canonicalSpecifier } from '../workspace/boundaries.js';
import type { LinkNames } from '../workspace/link-names.js';
import { JOINED_NAMESPACES } from '../bundlers/page-bundle.js';
import { indexWorkspace } from '../workspace/workspace-index.js';
import { bundledSheetOrder, type Preview } from './preview.js';

export interface PageBundlePlan {
  /** Names the plan: the same key, the same two files. */
  key: string;
  entry: string;
  /** Joined into the bundle: bare specifier -> address and content hash of its code. */
  modules: Map<string, { address: string; hash: string }>;
  /** Every listed stylesheet, in the order `/preview/` links them. */
  sheets: { address: string; hash: string }[];
  /** Where each part of the joined sheet after the first starts, by index in `sheets` (a CDN's sheet stands between two parts: `bundledSheetOrder`); present only when there are several. */
  sheetParts?: number[];
  /** The page's import map: what stays a separate module. */
  imports: Record<string, string>;
  /** Development sheets a listed sheet `@import`s by their `/m/` address, joined at the place of that `@import`; present only when there are some. */
  importedSheets?: { address: string; hash: string }[];
  /** Listed modules the page loads with diagnostics: their last good stylesheet is not in the joined sheet. */
  broken: string[];
  /**
   * Joined modules the page's import map names all the same (README "The bundled preview"): bare
   * specifier -> its link names, from which `joinedModuleCode` makes the small module answering
   * `import()` of it from the one script's run of it, under `key`, when that name is asked for
   * (most never are); `key` names the script's code alone (an edit of a sheet keeps it: the open
   * page keeps its script). Its address is `joinedModuleAddress`'s. Present only when there are some.
   */
  named?: { key: string; modules: Map<string, LinkNames> };
}

export interface PlanOptions {
  /** The bare specifiers the installed packages' bundles the page maps import (local CDN). */
  importedByInstalled?: readonly string[];
  /** An output's text by its content hash (the output cache): to find a sheet's `@import`s. */
  readOutput?: (hash: string) => string | undefined;
}

export function planPageBundle(state: ServiceState, preview: Preview, { importedByInstalled = [], readOutput }: PlanOptions = {}): PageBundlePlan {
  const index = indexWorkspace(state.workspace);
  const broken = new Set(preview.diagnostics.map((problem) => problem.module).filter((module) => module !== undefined));
  const addressOf = (specifier: string) => preview.imports[specifier];
  // Left out: what the CDN serves, what is not built, what answers an error (the page then
  // fails as `/preview/` does, and says why). A module loaded on its own must never also be
  // in the bundle (two instances of one module), so what it imports is left out too.
  const separate = new Set<string>();
  const pending: string[] = [];
  const leaveOut = (address: string | undefined) => {
    if (address === undefined || separate.has(address)) return;
    separate.add(address);
    pending.push(address);
  };
  // A module whose package the import map scopes (it loads another version of a name than the
  // top level, README "The local CDN") keeps its own address: joined, its imports would resolve
  // from the bundle's address, which no scope names.
  const scoped = Object.keys(preview.scopes ?? {});
  for (const module of preview.modules) {
    if (addressHash(module.code) === null || broken.has(module.specifier) || scoped.some((scope) => module.code.startsWith(scope))) leaveOut(module.code);
  }
  // An installed package's import of a workspace module resolves by the import map, never into
  // the join: joined, that module would be missing from the map (or run twice).
  for (const specifier of importedByInstalled) leaveOut(addressOf(specifier));
  const specifiersAt = new Map<string, string[]>();
  for (const [specifier, address] of Object.entries(preview.imports)) specifiersAt.set(address, [...(specifiersAt.get(address) ?? []), specifier]);
  const recordOf = (specifier: string) => {
    const module = index.modules.get(specifier);
    if (!module) return undefined;
    const canonical = index.modules.get(canonicalSpecifier(state.workspace, specifier, module.entry)) ?? module;
    return state.builds[canonical.specifier]?.variants[defaultVariantKey(canonical)]?.last;
  };
  do {
    while (pending.length > 0) {
      for (const specifier of specifiersAt.get(pending.pop()!) ?? []) {
        const record = recordOf(specifier);
        for (const imported of record?.imports ?? []) leaveOut(addressOf(imported.specifier));
        // Its shared files too (README "Shared files"): one instance of each, outside the bundle.
        for (const shared of Object.keys(record?.outputs?.chunks ?? {})) leaveOut(addressOf(shared));
      }
    }
    setupModulesBefore(preview, recordOf, separate).forEach(leaveOut);
  } while (pending.length > 0);

  const modules = new Map<string, { address: string; hash: string }>();
  const imports: Record<string, string> = {};
  for (const [specifier, address] of Object.entries(preview.imports)) {
    const hash = addressHash(address);
    if (hash !== null && !separate.has(address)) modules.set(specifier, { address, hash });
    else imports[specifier] = address;
  }
  // Joined in `/preview/`'s order, cut where it links a CDN's sheet between two (README "The bundled preview").
  const parts = bundledSheetOrder(preview).parts.map((part) => part.map((module) => ({ address: module.styles!, hash: addressHash(module.styles!) ?? '' })));
  const sheets = parts.flat();
  const sheetParts = parts.slice(1).map((_, at) => parts.slice(0, at + 1).flat().length);
  const importedSheets = readOutput ? sheetsImportedByAddress(state, sheets, readOutput) : [];
  const named = readOutput ? namedModules(preview.entry, modules, imports, recordOf) : new Map<string, LinkNames>();
  const namesKey = contentHash(JSON.stringify([preview.entry, [...modules], imports, [...named.keys()]]));
  // The script holds the names' key: a page saved under this key (README "The build cache") has the same.
  const key = contentHash(JSON.stringify([preview.entry, [...modules], sheets, imports, ...(importedSheets.length > 0 ? [importedSheets] : []), ...(named.size > 0 ? [namesKey] : []), ...(sheetParts.length > 0 ? [{ sheetParts }] : [])]));
  return {
    key,
    entry: preview.entry,
    modules,
    sheets,
    ...(sheetParts.length > 0 ? { sheetParts } : {}),
    ...(importedSheets.length > 0 ? { importedSheets } : {}),
    imports,
    broken: [...broken].filter((specifier) => preview.loads.includes(specifier) && preview.modules.some((module) => module.specifier === specifier)),
    ...(named.size > 0 ? { named: { key: namesKey, modules: named } } : {}),
  };
}

/**
 * The joined modules the import map names too (README "The bundled preview"), with their link
 * names: those the join runs anyway, reached from the entry by static imports of joined modules
 * (an import the importer's output also calls `import()` of is not followed: naming a module runs
 * it at the script's end, and one only imported later must not run sooner), whose exports are
 * known and whose whole or named re-exports resolve on the page.
 */
function namedModules(entry: string, modules: ReadonlyMap<string, unknown>, separate: Record<string, string>, recordOf: (specifier: string) => BuildRecord | null | undefined): Map<string, LinkNames> {
  const reached = new Map<string, LinkNames>();
  const pending = modules.has(entry) ? [entry] : [];
  const seen = new Set(pending);
  while (pending.length > 0) {
    const specifier = pending.pop()!;
    const record = recordOf(specifier);
    if (!record?.links) continue;
    reached.set(specifier, record.links);
    // The build lists the literal `import()` calls itself (`dynamic`): no output is read for them.
    const called = new Set((record.imports ?? []).filter((imported) => imported.dynamic).map((imported) => imported.specifier));
    for (const { specifier: imported } of record.imports ?? []) {
      if (!modules.has(imported) || called.has(imported) || seen.has(imported)) continue;
      seen.add(imported);
      pending.push(imported);
    }
  }
  // A re-export of a name the page cannot resolve would fail the small module's link: left unnamed.
  for (let changed = true; changed; ) {
    changed = false;
    for (const [specifier, links] of reached) {
      const targets = [...(links.stars ?? []), ...(links.reexports ?? []).map((found) => found.specifier), ...(links.namespaces ?? []).map((found) => found.specifier)];
      if (targets.every((target) => target in separate || reached.has(target))) continue;
      reached.delete(specifier);
      changed = true;
    }
  }
  return reached;
}

/** Where the page finds `specifier` of the bundle `key` by name (README "The bundled preview"). */
export const joinedModuleAddress = (entry: string, key: string, specifier: string) => `/preview/bundled/module.js?entry=${encodeURIComponent(entry)}&key=${key}&module=${encodeURIComponent(specifier)}`;

/**
 * The small module the import map names for a joined module: its exports read from the one
 * script's run of it (the namespace the script handed over under `key`), never run again. A name
 * the module re-exports from another stays a re-export of that module's own address, and a
 * whole re-export stays whole, so the browser links them as on `/preview/`.
 */
export function joinedModuleCode(specifier: string, key: string, links: LinkNames): string {
  const reexported = new Map((links.reexports ?? []).map((found) => [found.name, found]));
  const namespaces = new Map((links.namespaces ?? []).map((found) => [found.name, found.specifier]));
  const name = JSON.stringify;
  const lines = [
    `// ${specifier}, joined into the bundled preview's one script, which ran it (README "The bundled preview").`,
    `const joined = globalThis[Symbol.for(${name(JOINED_NAMESPACES)})]?.get(${name(key)})?.(${name(specifier)});`,
    `if (joined === undefined) throw new Error(${name(`${specifier} is joined into the bundled preview's script, which has not run it yet`)});`,
  ];
  links.exports.forEach((exported, at) => {
    const from = reexported.get(exported);
    const namespace = namespaces.get(exported);
    if (namespace !== undefined) lines.push(`export * as ${name(exported)} from ${name(namespace)};`);
    else if (from) lines.push(`export { ${name(from.imported)} as ${name(exported)} } from ${name(from.specifier)};`);
    else lines.push(`const export${at} = joined[${name(exported)}];`, `export { export${at} as ${name(exported)} };`);
  });
  for (const star of links.stars ?? []) lines.push(`export * from ${name(star)};`);
  return `${lines.join('\n')}\n`;
}

// An `@import` of a compiled sheet: its address, quoted or in `url()`.
const SHEET_IMPORT = /@import\s+(?:url\(\s*)?["']?([^"')\s;]+)/g;

/**
 * The development sheets the listed sheets `@import` by address, transitively, at their current
 * content: joined in place of the `@import`, whose address esbuild would otherwise keep and move
 * to the top of the one sheet, before the sheets `/preview/` links earlier (README "The bundled preview").
 */
function sheetsImportedByAddress(state: ServiceState, sheets: readonly { address: string; hash: string }[], readOutput: (hash: string) => string | undefined): { address: string; hash: string }[] {
  let current: Map<string, { address: string; hash: string }> | null = null;
  const currentSheets = () => {
    if (current) return current;
    current = new Map();
    for (const module of indexWorkspace(state.workspace).modules.values()) {
      const styles = state.builds[module.specifier]?.variants[defaultVariantKey(module)]?.last?.outputs?.styles;
      if (styles) current.set(pathOfAddress(stylesAddress(module)), { address: stylesAddress(module, styles.hash), hash: styles.hash });
    }
    return current;
  };
  const found = new Map<string, { address: string; hash: string }>();
  const pending = [...sheets];
  while (pending.length > 0) {
    const sheet = pending.pop()!;
    const text = readOutput(sheet.hash);
    if (!text?.includes('@import')) continue;
    for (const [, url] of text.matchAll(SHEET_IMPORT)) {
      const imported = currentSheets().get(new URL(url!, new URL(sheet.address, 'http://service.invalid')).pathname);
      if (!imported || found.has(imported.address)) continue;
      found.set(imported.address, imported);
      pending.push(imported);
    }
  }
  return [...found.values()];
}

const pathOfAddress = (address: string) => address.replace(/[?#].*$/, '');

/**
 * The addresses of the development modules that export nothing (run for their effects: a
 * polyfill, a config, a global shim) which a module the page loads imports before a module left
 * separate (an installed package). On `/preview/` each runs before that import; joined, it would
 * run after every separate module, which the bundle imports at its top (README "The bundled
 * preview"). Left separate too, the bundle imports it in its place.
 */
function setupModulesBefore(preview: Preview, recordOf: (specifier: string) => BuildRecord | null | undefined, separate: Set<string>): string[] {
  const found: string[] = [];
  const runsForEffects = (specifier: string) => {
    const links = recordOf(specifier)?.links;
    return links !== undefined && links.exports.length === 0 && (links.stars ?? []).length === 0;
  };
  // What is never joined: a module left out, or an address naming no output of the service's (the CDN's).
  const isSeparate = (address: string) => separate.has(address) || addressHash(address) === null;
  for (const importer of preview.loads) {
    const imports = (recordOf(importer)?.imports ?? []).map(({ specifier }) => ({ specifier, address: preview.imports[specifier] }));
    const lastSeparate = imports.findLastIndex(({ address }) => address !== undefined && isSeparate(address));
    for (const { specifier, address } of imports.slice(0, Math.max(0, lastSeparate))) {
      if (address !== undefined && !isSeparate(address) && runsForEffects(specifier)) found.push(address);
    }
  }
  return found;
}

export interface BundledFile {
  body: Buffer;
  hash: string;
}

export interface BundledPage {
  code: BundledFile;
  /** One joined sheet per part (`PageBundlePlan.sheetParts`), in the page's order. */
  styles: BundledFile[];
  /** What names each part's source map: a hash of the sheets it joins. */
  partKeys: string[];
  /** The source maps, joined the first time one is asked for. */
  maps(): Promise<BundledMaps>;
}

/** The code's source map, and one per part of the joined sheet. */
export interface BundledMaps {
  codeMap: BundledFile;
  stylesMap: BundledFile[];
}

export interface PageBundles {
  /** The files of `plan`, joined once and kept while it is among the last few. */
  bundle(plan: PageBundlePlan): Promise<BundledPage>;
  /** A file of a kept bundle by its content hash: an earlier `v=` address keeps its bytes. */
  find(hash: string): BundledFile | undefined;
  /** A source map of a kept bundle, by the bundle's key (the maps are a function of what it joined); a part's of the joined sheet by its number (undefined once it has no such part). */
  findMap(kind: MapKind, key: string, part?: number): Promise<BundledFile | undefined> | undefined;
  /** Removes the files the joins read: the service is closing. */
  dispose(): void;
}

/** An output a bundle was joined from has been collected since: its maps can no longer be joined. */
export class BundleOutputGone extends Error {}

/** How many bundles are kept: an open page, a reload after an edit, another entry. */
const KEPT = 4;

export interface PageJoiner {
  files: typeof bundlePage;
  maps: typeof bundlePageMaps;
}

export interface PageBundlesOptions {
  join?: PageJoiner;
  files?: JoinFiles;
  /** The pages joined before, kept across restarts (README "The build cache"): none by default. */
  saved?: JoinedPages;
}

/**
 * `mapAddress(kind, entry, key, part)`: where a file of `entry`'s bundle finds its source map:
 * the code's by the bundle's key, a part of the joined sheet's (`part`) by that part's own
 * (`BundledPage.partKeys`), so a part whose sheets no edit changed keeps its bytes and is not swapped.
 */
export type MapAddress = (kind: MapKind, entry: string, key: string, part: number) => string;

export function createPageBundles(outputs: OutputCache, mapAddress: MapAddress, options: PageBundlesOptions = {}): PageBundles {
  const join = options.join ?? { files: bundlePage, maps: bundlePageMaps };
  const files = options.files ?? createJoinFiles();
  const kept = new Map<string, Promise<BundledPage>>();
  const settled = new Map<string, BundledPage>();
  /** The files each kept bundle, or join under way, reads. */
  const reading = new Map<string, string[]>();
  const joining = new Set<string>();
  const inputOf = (plan: PageBundlePlan) => planInput(outputs, plan);
  // The files no kept bundle and no join under way reads are removed once a join ends.
  const release = (key: string) => {
    joining.delete(key);
    for (const known of reading.keys()) if (!kept.has(known) && !joining.has(known)) reading.delete(known);
    files.retain(new Set([...reading.values()].flat()));
  };
  const pageOf = (plan: PageBundlePlan, { code, styles }: { code: Uint8Array; styles: Uint8Array[] }): BundledPage => {
    // A page restored from disk joins its maps from the same files a join reads: they are its
    // reading too, so another join's end does not remove them under it.
    const joinMaps = () => {
      const input = inputOf(plan);
      reading.set(plan.key, joinedFiles(input, files));
      return join.maps(input, files);
    };
    const page = bundledPage(plan, code, styles, mapAddress, joinMaps);
    settled.set(plan.key, page);
    return page;
  };
  // Joined anew: its files are read until it ends, then saved for the next start, after the answer.
  const joinPage = (plan: PageBundlePlan): Promise<BundledPage> => {
    const input = inputOf(plan);
    reading.set(plan.key, joinedFiles(input, files));
    joining.add(plan.key);
    const joined = join.files(input, files).then((bundle) => {
      void options.saved?.write(plan.key, { code: Buffer.from(bundle.code), styles: bundle.styles.map((part) => Buffer.from(part)) });
      return pageOf(plan, bundle);
    });
    joined.then(
      () => release(plan.key),
      () => {
        kept.delete(plan.key);
        // The files may be what failed (a full or vanished directory): the next join writes them again.
        files.forget();
        release(plan.key);
      },
    );
    return joined;
  };
  return {
    bundle(plan) {
      const known = kept.get(plan.key);
      if (known) return known;
      const saved = options.saved?.read(plan.key);
      const page = saved ? Promise.resolve(pageOf(plan, saved)) : joinPage(plan);
      kept.set(plan.key, page);
      for (const key of kept.keys()) {
        if (kept.size <= KEPT) break;
        kept.delete(key);
        settled.delete(key);
      }
      return page;
    },
    find(hash) {
      for (const page of settled.values()) {
        for (const kept of [page.code, ...page.styles]) if (kept.hash === hash) return kept;
      }
      return undefined;
    },
    findMap(kind, key, part = 0) {
      if (kind === 'codeMap') return settled.get(key)?.maps().then((maps) => maps.codeMap);
      return [...settled.values()].find((page) => page.partKeys[part] === key)?.maps().then((maps) => maps.stylesMap[part]);
    },
    dispose() {
      files.remove();
    },
  };
}

// Read from the output cache when joined: the maps are joined later from the same outputs.
function planInput(outputs: OutputCache, plan: PageBundlePlan): PageBundleInput {
  const text = (hash: string, address: string) => {
    const body = outputs.get(hash);
    if (!body) throw new BundleOutputGone(`the output ${hash} of ${address}, rebuilt since`);
    return body.toString('utf8');
  };
  return {
    entry: plan.entry,
    modules: new Map([...plan.modules].map(([specifier, { address, hash }]) => [specifier, { address, code: text(hash, address), hash }])),
    sheets: plan.sheets.map(({ address, hash }) => {
      const styles = text(hash, address);
      return { address, styles, hash: hash || contentHash(styles) };
    }),
    ...(plan.sheetParts ? { sheetParts: plan.sheetParts } : {}),
    importedSheets: (plan.importedSheets ?? []).map(({ address, hash }) => ({ address, styles: text(hash, address), hash })),
    separate: Object.keys(plan.imports),
    ...(plan.named ? { named: { key: plan.named.key, specifiers: [...plan.named.modules.keys()] } } : {}),
  };
}

// The files as served: each names its source map, joined the first time one is asked for.
function bundledPage(plan: PageBundlePlan, code: Uint8Array, styles: Uint8Array[], mapAddress: MapAddress, joinMaps: () => Promise<PageBundleMaps>): BundledPage {
  let maps: Promise<BundledMaps> | null = null;
  // The sheets a part joins, and those they `@import` by address, name its map: the other parts' edits leave its bytes as they were.
  const partKeys = sheetPartsOf(plan).map((sheets) => contentHash(JSON.stringify([plan.entry, sheets, plan.importedSheets ?? []])));
  return {
    code: file(Buffer.concat([code, Buffer.from(`//# sourceMappingURL=${mapAddress('codeMap', plan.entry, plan.key, 0)}\n`)])),
    styles: styles.map((part, at) => file(part.byteLength === 0 ? part : Buffer.concat([part, Buffer.from(`/*# sourceMappingURL=${mapAddress('stylesMap', plan.entry, partKeys[at]!, at)} */\n`)]))),
    partKeys,
    maps() {
      maps ??= Promise.resolve()
        .then(joinMaps)
        .then(({ codeMap, stylesMap }) => ({ codeMap: file(codeMap), stylesMap: stylesMap.map(file) }));
      // A failure (an output collected since) is the request's to report; the next one tries again.
      maps.catch(() => (maps = null));
      return maps;
    },
  };
}

function file(content: Uint8Array): BundledFile {
  const body = Buffer.from(content);
  return { body, hash: contentHash(body) };
}

export interface SavedPagePreparation {
  saved: JoinedPages;
  /** The first settled state (no check against the disk: no request waits). */
  settled(): Promise<unknown>;
  getState(): ServiceState;
  /** Makes the default entry's page of `state`, as its request would. */
  prepare(state: ServiceState): Promise<unknown>;
}

/**
 * A restart whose last run served a bundled page (one is saved) prepares the default entry's
 * page once its state first settled and the address is out, while the browser starts: the
 * request then checks the disk as every answer does, and finds made what the same state gives
 * (README "The bundled preview"). Resolves when done; what fails here, the request reports.
 */
export async function prepareSavedPage({ saved, settled, getState, prepare }: SavedPagePreparation): Promise<void> {
  if (!saved.any()) return;
  try {
    await settled();
    // After the turn that tells the address: the terminal's lines go first.
    await new Promise((resolve) => setImmediate(resolve));
    const state = getState();
    if (selectSettled(state)) await prepare(state);
  } catch {
    // The service is closing, or the page cannot be made: its request says why.
  }
}

export interface JoinAhead {
  /** Is a bundled page in use (asked for recently)? */
  wanted(): boolean;
  /** Joins the bundle of that page for `state`; a failure is the page request's to report. */
  join(state: ServiceState): Promise<unknown>;
  /** A throw while choosing what to join (a defect): reported, and joining ahead goes on. */
  failed(error: unknown): void;
}

/**
 * Joins the bundle of each settled state ahead of the page request while a bundled page is in
 * use: the join (about 0.2 s for 1,000 modules) runs while the person goes back to the
 * browser. A newer state supersedes the join of an older one; the page request still checks
 * the disk and joins itself whatever no state settled to.
 */
export function joinAhead(state$: Observable<ServiceState>, ahead: JoinAhead): Subscription {
  // A throw in a filter would end the subscription and, unhandled, the process.
  const safely = (test: () => boolean) => {
    try {
      return test();
    } catch (error) {
      ahead.failed(error);
      return false;
    }
  };
  // Whether a page is in use first: judging every state settled, a look at every module, would
  // delay each stylesheet push for nothing when none is (ARCHITECTURE.md "One stylesheet edit").
  return state$
    .pipe(
      filter(() => safely(ahead.wanted)),
      filter((state) => safely(() => selectSettled(state))),
      distinctUntilChanged(),
      switchMap((state) => defer(() => ahead.join(state)).pipe(catchError(() => EMPTY))),
    )
    .subscribe();
}
