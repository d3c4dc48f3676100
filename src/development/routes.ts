// `/preview/`, `/preview/entry.json`, the bundled preview under `/preview/bundled/` and the
// runtime under `/u/`.
import fs from 'node:fs';
import type { HttpContext } from '../http/context.js';
import type { ExtensionHost } from '../extension.js';
import { ERROR_CODES, isServiceError, ServiceError } from '../http/errors.js';
import { isCrossSiteRefused, sendOutput } from '../http/send-output.js';
import { wantsHtml } from '../http/wants-html.js';
import { isContentHash } from '../outputs/content-hash.js';
import { bundlePage, bundlePageMaps, PageBundleError, type MapKind, type PageBundleInput } from '../bundlers/page-bundle.js';
import type { JoinFiles } from '../bundlers/join-files.js';
import { createCallsInFlight } from '../bundlers/calls-in-flight.js';
import { EngineUnavailable } from '../bundlers/types.js';
import type { ServiceState } from '../store/state.js';
import { BundleOutputGone, createPageBundles, joinedModuleAddress, joinedModuleCode, joinAhead, planPageBundle, prepareSavedPage, type BundledFile, type BundledPage, type PageBundlePlan, type PageBundles } from './bundled-preview.js';
import { contentHash } from '../outputs/content-hash.js';
import path from 'node:path';
import { packageFile } from '../package-files.js';
import { escapeHtml, htmlPage } from '../html-page.js';
import { installedCopy, type InstalledCopy } from '../io/installed-packages.js';
import { createJoinedPages } from '../io/joined-pages.js';
import { renderBundledPage, renderPreviewPage } from './preview-page.js';
import { createPreviewDeriver, linkCdnStylesheets, warnUnlinkedScriptSheets, type Preview, type PreviewDiagnostic } from './preview.js';
import { awaitsAtTopLevel } from '../bundlers/top-level-await.js';
import { LOCAL_CDN, LOCAL_CDN_PREFIX, localCdnAddress, registerLocalCdn, type LocalCdn } from './local-cdn.js';
import { diagnostic } from '../workspace/diagnostics.js';
import { indexWorkspace } from '../workspace/workspace-index.js';
import { leftOutProductionDiagnostics } from './left-out-sheets.js';
import { DIAGNOSTIC_KINDS, type DiagnosticKind } from '../codes.js';
import type { PushMessage } from '../protocol/push.js';
import type { LinkNames } from '../workspace/link-names.js';

// Compiled into dist/, whichever form this code runs in.
const RUNTIME_FILE = packageFile('dist/development/runtime/runtime.js');

/** The push messages after which a preview's error page asks whether the service can make the page now. */
const ERROR_PAGE_ASKS_ON: PushMessage['type'][] = ['workspace', 'valid', 'code'];
/** While the service is away, the longest wait between two tries of the error page to connect again (as the runtime's). */
const ERROR_PAGE_RECONNECT_AT_MOST_MS = 2000;

/** How long after the last bundled page is asked for its bundle is still joined ahead. */
const JOIN_AHEAD_MS = 10 * 60_000;

export function registerPreviewRoutes(host: ExtensionHost, instance: string): void {
  const runtime = Buffer.from(fs.readFileSync(RUNTIME_FILE, 'utf8').replace(/^\/\/# sourceMappingURL=.*$/m, ''));
  const runtimeHash = contentHash(runtime);
  const runtimeAddress = `/u/runtime.js?v=${runtimeHash.slice(0, 12)}`;
  const previews = createPreviews(host, host.cdnOrigin === LOCAL_CDN ? registerLocalCdn(host) : null);
  const bundled = createBundledPreview(host, previews);

  host.router.get('/preview', redirectToDirectory('/preview/'));
  host.router.get('/preview/', async (ctx) => {
    if (!host.cdnOrigin && sentCdnUnsetPage(ctx)) return;
    const made = await madeOrErrorPage(ctx, previews.previewAndState(ctx));
    if (made === undefined) return;
    const page = renderPreviewPage(made.preview, runtimeAddress, { instance, seq: made.state.seq });
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });
  host.router.get('/preview/bundled', redirectToDirectory('/preview/bundled/'));
  host.router.get('/preview/bundled/', async (ctx) => {
    if (!host.cdnOrigin && sentCdnUnsetPage(ctx)) return;
    const made = await madeOrErrorPage(ctx, bundled.page(ctx));
    if (made === undefined) return;
    const { preview, plan, page, state } = made;
    const addresses = {
      code: bundledAddress('code.js', preview.entry, page.code.hash),
      // One address per part of the joined sheet (README "The bundled preview").
      styles: page.styles.map((part, at) => ({ address: bundledAddress('styles.css', preview.entry, part.hash, at), current: bundledAddress('styles.css', preview.entry, undefined, at) })),
    };
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    const named = Object.fromEntries([...(plan.named?.modules.keys() ?? [])].map((specifier) => [specifier, joinedModuleAddress(preview.entry, plan.named!.key, specifier)]));
    ctx.body = renderBundledPage(preview, plan.imports, addresses, runtimeAddress, { instance, seq: state.seq }, named);
  });
  host.router.get('/preview/bundled/module.js', sendJoinedModule(bundled));
  host.router.get('/preview/bundled/code.js', sendBundled(bundled, 'code'));
  host.router.get('/preview/bundled/code.js.map', sendBundledMap(bundled, 'codeMap'));
  host.router.get('/preview/bundled/styles.css.map', sendBundledMap(bundled, 'stylesMap'));
  host.router.get('/preview/bundled/styles.css', sendBundled(bundled, 'styles'));
  host.router.get('/preview/entry.json', async (ctx) => {
    // The cascade orders the page's links; `modules` lists the development ones in it already.
    const { cascade: _cascade, cascadeReached: _reached, ...preview } = (await previews.previewAndState(ctx)).preview;
    // A sheet's place among the links (`at`) is the page's, not the list's.
    if (preview.stylesheets) preview.stylesheets = preview.stylesheets.map(({ specifier, href }) => ({ specifier, href }));
    const body = JSON.stringify(preview, null, 2);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = body;
  });
  host.router.get('/u/runtime.js', (ctx) => {
    sendOutput(ctx, runtime, { type: 'text/javascript; charset=utf-8', hash: runtimeHash, anyOrigin: false });
  });
}

interface Previews {
  /** The preview of the entry a request asks for, once the state is settled, and that state. */
  previewAndState(ctx: HttpContext): Promise<{ preview: Preview; state: ServiceState }>;
  previewOf(state: ServiceState, entry: string | undefined, cdnOrigin: string): Promise<Preview>;
}

/** How many scripts' joined modules keep their names: the kept bundles' and a few more. */
const RECENT_NAMES = 8;

/** How many outputs' answer to "does it await at its top level?" are kept. */
const AWAITS_KEPT = 10_000;

// The bare specifiers the local CDN's bundles of a preview import (README "The bundled preview":
// a workspace module among them stays out of the join).
const importedByInstalled = new WeakMap<Preview, readonly string[]>();

function createPreviews(host: ExtensionHost, localCdn: LocalCdn | null): Previews {
  // The copy of a package outside the workspace that a workspace package would load; a link
  // left under a former name says which workspace package it leads to.
  const installed = (name: string, packageDir: string): InstalledCopy | null =>
    installedCopy(name, path.resolve(host.root, packageDir), { root: host.root, packageDirs: host.getState().workspace.packages.map((pkg) => pkg.dir) });

  const derive = createPreviewDeriver(installed);

  async function previewOf(state: ServiceState, entry: string | undefined, cdnOrigin: string): Promise<Preview> {
    const result = derive(state, { entry, cdnOrigin: localCdn ? LOCAL_CDN_PREFIX : cdnOrigin });
    // No entry, often because a manifest is broken (its package then publishes nothing): the
    // broken manifest is the reason to show, as the page would show it (README "Preview and stylesheet push").
    const broken = state.workspace.diagnostics.length > 0 ? { diagnostics: [...state.workspace.diagnostics] } : {};
    if (!result.ok) throw new ServiceError(result.reason === 'not-web' ? 'CONDITIONAL_NOT_FOUND' : 'OUTPUT_NOT_AVAILABLE', result.message, broken);
    // What follows adds to the preview: the kept one stays as derived.
    const preview: Preview = { ...result.preview, diagnostics: [...result.preview.diagnostics], imports: { ...result.preview.imports } };
    if (localCdn) {
      // The installed packages the page loads import others: those are mapped too.
      const { unresolved, unserved, twice, refused, scopes, unscoped, ignored, importedByBundles } = await localCdn.complete(preview.imports, preview.scopes ?? {});
      // Where a package loads another version of a name than the top level maps (README "The local CDN").
      if (Object.keys(scopes).length > 0) preview.scopes = scopes;
      importedByInstalled.set(preview, importedByBundles);
      for (const specifier of unresolved) {
        preview.diagnostics.push(diagnostic('PREVIEW_VERSION_UNRESOLVED', `${specifier} is imported by an installed package but no copy of it is installed where that package would load it: install it`));
      }
      // The page's import of it fails: said here as the page would meet it (README "The local CDN").
      for (const { specifier, message } of refused) preview.diagnostics.push({ ...diagnostic('PREVIEW_CDN_PACKAGE_REFUSED', `${specifier}: ${message}`), module: specifier });
      // A left-out package's module runs its production build there (README "The local CDN").
      preview.diagnostics.push(...leftOutProductionDiagnostics(state, preview.imports, indexWorkspace(state.workspace), LOCAL_CDN_PREFIX));
      // A warning, not an error: the page runs until it loads that file (README "The local CDN").
      const unservedWarnings = unserved.map(({ specifier, url, address }) => ({
        ...diagnostic('PREVIEW_CDN_FILE_UNSERVED', `${specifier} loads its own file ${JSON.stringify(url)} by new URL(..., import.meta.url): the local CDN joins the package into one module at ${address}, so the URL names ${new URL(url, `http://cdn.invalid${address}`).pathname}, a file it does not serve, and that load fails`),
        module: specifier,
      }));
      // A warning too: most such files are helpers without state (README "The local CDN").
      const twiceWarnings = twice.map(({ specifier, other, packageName, file }) => ({
        ...diagnostic('PREVIEW_CDN_FILE_TWICE', `${specifier} and ${other} each hold their own copy of ${packageName}'s file ${file}, which no export of it names: the page runs it twice, its module state and classes twice over`),
        module: specifier,
      }));
      // A warning as a workspace sheet's is an error: the service judges no installed package, and the page runs without those rules (README "The local CDN").
      const ignoredWarnings = ignored.map(({ specifier, packageName, file, line, text, why }) => ({
        ...(why === 'misplaced'
          ? diagnostic('PREVIEW_CDN_SHEET_IMPORT_IGNORED', `${specifier}: ${packageName}'s sheet ${file}, line ${line}, writes ${JSON.stringify(text)}, an @import that is not at the top of its sheet, before every rule (only @charset and @layer statements may come before one): a browser ignores it, so the page misses the rules it names`)
          : diagnostic('PREVIEW_CDN_SHEET_CONDITION_UNAPPLIED', `${specifier}: ${packageName}'s sheet ${file}, line ${line}, writes ${JSON.stringify(text)}: the page links the other package's sheet before it, without that condition, so its rules apply everywhere`)),
        module: specifier,
      }));
      // A new list: the preview's own may be the one kept with the state it was derived from.
      // A warning: the page runs, with one version where Node would load two (README "The local CDN").
      const unscopedWarnings = unscoped.map(({ packageName, version, dirs, specifier, addresses }) => ({
        ...diagnostic(
          'PREVIEW_CDN_SCOPE_AMBIGUOUS',
          `${packageName}@${version} is installed twice, at ${path.relative(host.root, dirs[0]) || '.'} and at ${path.relative(host.root, dirs[1]) || '.'}, and the two load "${specifier}" at ${addresses[0]} and at ${addresses[1]}: both copies have the one address ${localCdnAddress(packageName, version, '')}, which serves the first, so no import map scope can give the second its own, and the page's importers of that copy run ${addresses[0]}`,
        ),
        module: packageName,
      }));
      const added = [...unservedWarnings, ...twiceWarnings, ...unscopedWarnings, ...ignoredWarnings];
      if (added.length > 0) preview.warnings = [...(preview.warnings ?? []), ...added];
      const sheets = await localCdn.stylesheets(preview.imports, preview.scopes);
      if (sheets.length > 0) preview.stylesheets = sheets;
    } else {
      linkCdnStylesheets(preview, cdnOrigin);
      warnUnlinkedScriptSheets(state, preview, cdnOrigin);
    }
    return preview;
  }

  return {
    previewOf,
    async previewAndState(ctx) {
      if (!host.cdnOrigin) {
        throw new ServiceError('PREVIEW_CDN_UNSET', 'the preview needs CORE_CDN_ORIGIN, the origin serving the packages not in development, and the service was started without it');
      }
      const state = await host.readiness.settled();
      return { preview: await previewOf(state, entryOf(ctx), host.cdnOrigin), state };
    },
  };
}

/** `part`: of the joined sheet, named when not the first (README "The bundled preview"). */
const bundledAddress = (file: string, entry: string, hash?: string, part = 0) => `/preview/bundled/${file}?entry=${encodeURIComponent(entry)}${part > 0 ? `&part=${part}` : ''}${hash ? `&v=${hash}` : ''}`;
const MAP_FILES = { codeMap: 'code.js.map', stylesMap: 'styles.css.map' } as const;
const BUNDLED_TYPES = { code: 'text/javascript; charset=utf-8', styles: 'text/css; charset=utf-8', codeMap: 'application/json; charset=utf-8', stylesMap: 'application/json; charset=utf-8' } as const;

interface BundledPreview {
  bundles: PageBundles;
  /** The code answering a joined module's name in a recent plan (README "The bundled preview"), or undefined. */
  namedModule(key: string, specifier: string): string | undefined;
  /** The bundled page of the entry a request asks for, joined from the settled state. */
  page(ctx: HttpContext): Promise<{ preview: Preview; state: ServiceState; plan: PageBundlePlan; page: BundledPage }>;
}

function createBundledPreview(host: ExtensionHost, previews: Previews): BundledPreview {
  const saved = host.savedPages ? createJoinedPages(host.savedPages.dir, host.savedPages.identity) : undefined;
  // The joins, cancelled and waited for when the service closes (calls-in-flight.ts); then the
  // files they read go.
  const calls = createCallsInFlight();
  const join = {
    files: (input: PageBundleInput, files: JoinFiles) => calls.run(`the bundled page's join of ${input.entry}`, undefined, (signal) => bundlePage(input, files, signal)),
    maps: (input: PageBundleInput, files: JoinFiles) => calls.run(`the bundled page's source maps of ${input.entry}`, undefined, (signal) => bundlePageMaps(input, files, signal)),
  };
  const bundles = createPageBundles(host.outputs, (kind, entry, hash, part) => bundledAddress(MAP_FILES[kind], entry, hash, part), { join, ...(saved ? { saved } : {}) });
  host.atClose(async () => {
    await calls.end();
    bundles.dispose();
  });
  // The plan of a preview derived from a state, kept with what it was made from: the page of a
  // state prepared ahead (or asked for again) is not planned twice.
  const plans = new WeakMap<object, { state: ServiceState; added: string; plan: PageBundlePlan }>();
  // The joined modules' names of the scripts served lately, by their key: an open page asks them
  // (a sheet's edit keeps the key, a code edit reloads the page).
  const recentNames = new Map<string, Map<string, LinkNames>>();
  const planOf = (state: ServiceState, preview: Preview): PageBundlePlan => {
    // The scopes too: a scoped package's modules stay out of the bundle (bundled-preview.ts);
    // and the CDN's sheets, which cut the joined sheet into parts where they stand.
    const added = JSON.stringify([preview.diagnostics.length, preview.diagnostics.map((problem) => problem.module ?? null), preview.imports, preview.scopes ?? null, preview.stylesheets ?? null]);
    const kept = plans.get(preview.modules);
    const importedByBundles = importedByInstalled.get(preview);
    const plan = kept && kept.state === state && kept.added === added ? kept.plan : planPageBundle(state, preview, { ...(importedByBundles ? { importedByInstalled: importedByBundles } : {}), readOutput: (hash) => host.outputs.get(hash)?.toString('utf8') });
    plans.set(preview.modules, { state, added, plan });
    if (plan.named) {
      recentNames.delete(plan.named.key);
      recentNames.set(plan.named.key, plan.named.modules);
      for (const key of recentNames.keys()) if (recentNames.size > RECENT_NAMES) recentNames.delete(key);
    }
    return plan;
  };
  // The last bundled page asked for: while it is recent, each settled state's bundle of its
  // entry is joined ahead, so the reload after an edit finds it ready.
  let lastAsked: { entry: string | undefined; at: number } | null = null;
  joinAhead(host.state$, {
    wanted: () => lastAsked !== null && Date.now() - lastAsked.at < JOIN_AHEAD_MS,
    join: async (state) => {
      if (!host.cdnOrigin || !lastAsked) return;
      const preview = await previews.previewOf(state, lastAsked.entry, host.cdnOrigin);
      await bundles.bundle(planOf(state, preview));
    },
    failed: (error) => host.failed('join-ahead', error),
  });
  const cdnOrigin = host.cdnOrigin;
  if (cdnOrigin && saved) {
    void prepareSavedPage({
      saved,
      settled: () => host.readiness.settled(false),
      getState: host.getState,
      prepare: async (state) => bundles.bundle(planOf(state, await previews.previewOf(state, undefined, cdnOrigin))),
    });
  }
  const withAwaitWarnings = awaitWarnings(host);
  return {
    bundles,
    namedModule: (key, specifier) => {
      const links = recentNames.get(key)?.get(specifier);
      return links && joinedModuleCode(specifier, key, links);
    },
    async page(ctx) {
      const { preview, state } = await previews.previewAndState(ctx);
      lastAsked = { entry: entryOf(ctx), at: Date.now() };
      const plan = planOf(state, preview);
      try {
        const page = await bundles.bundle(plan);
        return { preview: await withAwaitWarnings(preview, plan), state, plan, page };
      } catch (error) {
        if (error instanceof PageBundleError) throw new ServiceError('BUILD_FAILED', `the bundled preview of ${preview.entry} could not be joined: ${error.message}`, error.diagnostics.length > 0 ? { diagnostics: error.diagnostics } : {});
        // An expected condition, not the service's defect (README "When esbuild's process dies").
        if (error instanceof EngineUnavailable) throw new ServiceError('BUILD_FAILED', `the bundled preview of ${preview.entry} could not be joined: ${error.message}; save a file to try again`);
        throw error;
      }
    },
  };
}

/**
 * The bundled page says what runs in another order than on `/preview/` (README "The bundled
 * preview"): each joined module that awaits at its top level, asked once per output (by hash).
 */
function awaitWarnings(host: ExtensionHost): (preview: Preview, plan: PageBundlePlan) => Promise<Preview> {
  const awaits = new Map<string, boolean>();
  const awaitsAtTop = async (hash: string): Promise<boolean> => {
    const known = awaits.get(hash);
    if (known !== undefined) return known;
    const code = host.outputs.get(hash);
    const found = code !== undefined && (await awaitsAtTopLevel(code.toString('utf8')));
    if (awaits.size >= AWAITS_KEPT) awaits.clear();
    awaits.set(hash, found);
    return found;
  };
  return async (preview: Preview, plan: PageBundlePlan): Promise<Preview> => {
    const joined = [...plan.modules];
    // Asked together: esbuild reads them on every core.
    const awaiting = await Promise.all(joined.map(([, { hash }]) => awaitsAtTop(hash)));
    const warnings: PreviewDiagnostic[] = joined
      .filter((_, index) => awaiting[index])
      .map(([specifier]) => ({
        ...diagnostic('PREVIEW_BUNDLED_AWAIT', `${specifier} awaits at its top level: joined into the bundled preview's one script, the modules after it wait until it finishes, where on /preview/ a module that does not import it runs while it waits`),
        module: specifier,
      }));
    return warnings.length === 0 ? preview : { ...preview, warnings: [...(preview.warnings ?? []), ...warnings] };
  };
}

const refuseCrossSite = (ctx: HttpContext) => {
  if (isCrossSiteRefused(ctx.req, false)) throw new ServiceError('CROSS_SITE_REFUSED', 'the bundled preview is development output: it is not served to other sites');
};

const sendBundled = (bundled: BundledPreview, kind: 'code' | 'styles') => async (ctx: HttpContext) => {
  refuseCrossSite(ctx);
  const token = ctx.query.v;
  const type = BUNDLED_TYPES[kind];
  // `v=<hash>` names those bytes for ever (README "Addresses"): a kept one needs no check.
  const kept = isContentHash(token) ? bundled.bundles.find(token) : undefined;
  if (kept) return sendOutput(ctx, kept.body, { type, hash: kept.hash, anyOrigin: false, immutable: true });
  const { page, preview, plan } = await bundled.page(ctx);
  // The runtime asks the plain address for the sheet to swap in: while a module is broken its
  // rules are missing from it, and the page keeps the last good sheet instead.
  if (kind === 'styles' && token === undefined && plan.broken.length > 0) {
    throw new ServiceError('BUILD_FAILED', `the bundled stylesheet of ${preview.entry} waits for ${plan.broken.join(', ')} to build`, {
      diagnostics: preview.diagnostics.filter((problem) => problem.module !== undefined && plan.broken.includes(problem.module)),
    });
  }
  const file = kind === 'code' ? page.code : page.styles[partOf(ctx)];
  if (!file) throw noLongerKept(`the joined sheet of ${preview.entry} has ${page.styles.length} part(s) now, and part=${partOf(ctx)} names an earlier page's`);
  if (isContentHash(token) && token !== file.hash) {
    throw noLongerKept(`v=${token} names an earlier bundle of ${preview.entry}`);
  }
  sendOutput(ctx, file.body, { type, hash: file.hash, anyOrigin: false, immutable: isContentHash(token) });
};

// A joined module by its name (README "The bundled preview"): what a key and a specifier name
// never changes, so it is immutable; one no recent plan has is no longer available.
const sendJoinedModule = (bundled: BundledPreview) => (ctx: HttpContext) => {
  refuseCrossSite(ctx);
  const { key, module } = ctx.query;
  const code = typeof key === 'string' && typeof module === 'string' ? bundled.namedModule(key, module) : undefined;
  if (code === undefined) throw noLongerKept(`${typeof module === 'string' ? module : 'that module'} is not named by a bundled preview the service keeps`);
  const body = Buffer.from(code);
  sendOutput(ctx, body, { type: BUNDLED_TYPES.code, hash: contentHash(body), anyOrigin: false, immutable: true });
};

// A map is named by the key of the bundle it maps (what was joined): joined the first time a
// debugger asks, then kept with its bundle.
const sendBundledMap = (bundled: BundledPreview, kind: MapKind) => async (ctx: HttpContext) => {
  refuseCrossSite(ctx);
  const token = ctx.query.v;
  const type = BUNDLED_TYPES[kind];
  const part = partOf(ctx);
  const kept = isContentHash(token) ? bundled.bundles.findMap(kind, token, part) : undefined;
  if (isContentHash(token) && !kept) {
    throw noLongerKept(`v=${token} names a bundle of the bundled preview of ${entryOf(ctx) ?? 'the default entry'}`);
  }
  let map: BundledFile | undefined;
  try {
    map = await (kept ?? (await bundled.page(ctx)).page.maps().then((maps) => (kind === 'codeMap' ? maps.codeMap : maps.stylesMap[part])));
  } catch (error) {
    if (error instanceof BundleOutputGone) throw noLongerKept(`the source map of that bundle needs ${error.message}`);
    throw error;
  }
  if (!map) throw noLongerKept(`part=${part} names a part of the joined sheet that bundle does not have`);
  sendOutput(ctx, map.body, { type, hash: map.hash, anyOrigin: false, immutable: isContentHash(token) });
};

/** An address of the bundled preview whose bytes the service no longer keeps. */
const noLongerKept = (what: string) => new ServiceError('OUTPUT_NOT_AVAILABLE', `${what}, which is no longer kept: load the page again for the current address`);

/**
 * `?entry=`, the preview entry asked for; undefined for the default one. Given twice it names no
 * one entry: refused, as `/m/` refuses a parameter given twice, rather than the default shown.
 */
function entryOf(ctx: HttpContext): string | undefined {
  const entry = ctx.query.entry;
  if (Array.isArray(entry)) throw new ServiceError('OPTION_UNSUPPORTED', `${ctx.path}: the query parameter "entry" is given twice; name one preview entry`);
  return typeof entry === 'string' && entry !== '' ? entry : undefined;
}

/**
 * `?part=`, the part of the joined sheet asked for (README "The bundled preview"); 0, the first,
 * when absent. Anything but one decimal number names no part: refused, as `entry` given twice is.
 */
function partOf(ctx: HttpContext): number {
  const part = ctx.query.part;
  if (part === undefined) return 0;
  if (typeof part !== 'string' || !/^(?:0|[1-9][0-9]{0,5})$/.test(part)) throw new ServiceError('OPTION_UNSUPPORTED', `${ctx.path}: the query parameter "part" names a part of the bundled page's joined sheet by its number (1, 2, ...), once; it is ${JSON.stringify(part)}`);
  return Number(part);
}

/** `/preview` to `/preview/`, keeping the query: the page's relative addresses need the slash. */
const redirectToDirectory = (directory: string) => (ctx: HttpContext) => ctx.redirect(`${directory}${ctx.querystring ? `?${ctx.querystring}` : ''}`);

/**
 * What a preview page is made of, or undefined once a browser that asked for one the service
 * cannot make (an entry that does not run in browsers or does not exist, a bundle that cannot be
 * joined) was answered the error as a page it can show, with the fix and the way to the
 * dashboard; tools keep the JSON error.
 */
async function madeOrErrorPage<T>(ctx: HttpContext, made: Promise<T>): Promise<T | undefined> {
  try {
    return await made;
  } catch (error) {
    if (!isServiceError(error) || !wantsHtml(ctx)) throw error;
    ctx.status = error.status;
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = previewErrorPage(error);
    return undefined;
  }
}

const inlineCode = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

// What the page asks the reader to do: when the workspace's own diagnostics say why (a broken
// manifest), their fix first; the answer's own (ask for another address) after it, since a broken
// manifest elsewhere does not make a mistyped address right.
function remediesOf(error: ServiceError): { first: string; otherwise: string | null } {
  const kinds = [...new Set((error.diagnostics ?? []).map((d) => d.kind))].filter((kind): kind is DiagnosticKind => kind in DIAGNOSTIC_KINDS && DIAGNOSTIC_KINDS[kind as DiagnosticKind].severity === 'error');
  const own = ERROR_CODES[error.code].remedy;
  return kinds.length > 0 ? { first: kinds.map((kind) => DIAGNOSTIC_KINDS[kind].remedy).join('; '), otherwise: own } : { first: own, otherwise: null };
}

function previewErrorPage(error: ServiceError): string {
  const remedies = remediesOf(error);
  const diagnostics = (error.diagnostics ?? []).map((d) => {
    const place = d.file ? `${d.file}${d.line ? `:${d.line}${d.column ? `:${d.column}` : ''}` : ''} ` : '';
    return `<li><code>${escapeHtml(place)}${escapeHtml(d.kind)}</code> ${escapeHtml(d.message)}</li>`;
  });
  return htmlPage(`Preview: ${error.code}`, [ERROR_PAGE_STYLE, SHOWN_ONCE_MADE], `
<h1>The preview cannot show this page</h1>
<p><strong>${error.status} <code>${escapeHtml(error.code)}</code></strong>: ${escapeHtml(error.message)}</p>
${diagnostics.length > 0 ? `<ul>${diagnostics.join('\n')}</ul>` : ''}
<p>To fix: ${inlineCode(remedies.first)}.</p>
${remedies.otherwise ? `<p>If that is not the cause: ${inlineCode(remedies.otherwise)}.</p>\n` : ''}<p><a href="/preview/">The preview of the default entry</a> · <a href="/">the dashboard</a>, with the build of every module · <a href="/state">/state</a></p>
`);
}

// What makes a preview page possible again is a save (a manifest fixed, the entry declared, a
// module built again), which the push tells (`workspace`, `valid`, `code`), or a restart, which
// its connection tells by opening again. The error page listens on `/events` as the preview does
// and asks for its own address once for each of those, never on a clock: a page of an entry
// that stays undeclared costs nothing while it is open (README "Preview and stylesheet push").
const SHOWN_ONCE_MADE = `<script type="module">
  const ask = () => fetch(location.href, { headers: { accept: 'text/html' }, cache: 'no-store' }).then((answer) => answer.ok, () => false);
  let asking = null;
  let askAgain = false;
  const look = () => {
    if (asking) return void (askAgain = true);
    asking = ask().then((made) => made && location.reload()).finally(() => {
      asking = null;
      if (askAgain) (askAgain = false), look();
    });
  };
  const REASONS = new Set(${JSON.stringify(ERROR_PAGE_ASKS_ON)});
  const connect = (delay) => {
    const socket = new WebSocket(new URL('/events', location.href.replace(/^http/, 'ws')));
    socket.addEventListener('open', () => ((delay = 250), look()));
    socket.addEventListener('message', (event) => {
      try {
        if (REASONS.has(JSON.parse(String(event.data)).type)) look();
      } catch {}
    });
    socket.addEventListener('close', () => setTimeout(() => connect(Math.min(delay * 2, ${ERROR_PAGE_RECONNECT_AT_MOST_MS})), delay));
  };
  connect(250);
</script>`;

const ERROR_PAGE_STYLE = `<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 3rem auto; padding: 0 1rem; color: #1f2328; }
  code, pre { font: 14px ui-monospace, monospace; background: #f6f8fa; border-radius: 4px; }
  code { padding: 0.1rem 0.3rem; } pre { padding: 0.75rem 1rem; }
  @media (prefers-color-scheme: dark) { body { background: #0d1117; color: #e6edf3; } code, pre { background: #161b22; } }
</style>`;

/** A browser asking a page while CORE_CDN_ORIGIN is unset gets the reason as a page it can show; tools keep the JSON error. */
function sentCdnUnsetPage(ctx: HttpContext): boolean {
  if (!wantsHtml(ctx)) return false;
  ctx.status = 503;
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = CDN_UNSET_PAGE;
  return true;
}

const CDN_UNSET_PAGE = htmlPage('Preview: PREVIEW_CDN_UNSET', [ERROR_PAGE_STYLE], `
<h1>The preview needs a CDN origin</h1>
<p><strong>503 <code>PREVIEW_CDN_UNSET</code></strong>: the service was started without <code>CORE_CDN_ORIGIN</code>,
the origin that serves the packages this page imports that are not in development
(packages outside the workspace, and workspace packages left out of <code>core select</code>).</p>
<p>To preview: ${ERROR_CODES.PREVIEW_CDN_UNSET.remedy.replace(/`([^`]+)`/g, '<code>$1</code>')}. For example:</p>
<pre>CORE_CDN_ORIGIN=local core run           # the service itself, from node_modules: no network needed
CORE_CDN_ORIGIN=https://esm.sh core run   # a public CDN: what is published</pre>
<p>The modules in development are served all the same at <a href="/state">/state</a>'s addresses, and
the build of every module is on <a href="/">the dashboard</a>.</p>
`);

