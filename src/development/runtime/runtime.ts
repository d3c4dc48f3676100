// The development runtime, served under /u/ to the preview page only (never part of
// production output). It listens on /events and:
// - swaps a changed stylesheet by loading the new sheet before removing the old one, so
//   nothing is ever unstyled, and the DOM, input values and window state are kept;
// - keeps the last good sheet while a build is invalid or a sheet has a CSS syntax problem,
//   and shows them in an overlay that goes away when the module builds again;
// - reloads the page when the code of a module it loaded changes (README "Preview and
//   stylesheet push": the setting that turns it off), or an asset it fetched at its plain address
//   (no version) is saved with new content, and a page that failed to load once every module it
//   failed on builds again, and a page whose import map the service would now write otherwise (a
//   `workspace` message: a package renamed under its importer);
// - shows the warnings as they come and go, in a pill apart from the errors, and the
//   workspace's own diagnostics (a broken manifest) with the errors;
// - reconnects after the service restarts, then refreshes every sheet, shows only the
//   problems the service reports on connecting, and reloads when the code it would load now
//   is not the code the page runs, or an asset it fetched at its plain address answers other
//   bytes (either changed while the service was away); so does a first connection that reaches
//   another run of the service than the one that wrote the page;
// - counts what a same-origin frame of the page fetched as the page's own (a worker's fetches
//   stay unseen: README "Preview and stylesheet push" says why);
// - says, while a module the page runs is no longer served (a package name two packages
//   write, or the service back on another workspace), that the code running is the one loaded
//   before, and does not reload into that.
// It heeds only the modules the page loads (`core-page`): the entry and what it imports.
// The messages and their diagnostics are declared once, in src/protocol/push.ts (a type-only
// import: nothing of it is loaded by the page).
import type { ChannelMessage, PushDiagnostic as Diagnostic, PushMessage as Message } from '../../protocol/push.js';

const problems = new Map<string, Diagnostic[]>();
const warnings = new Map<string, Diagnostic[]>();
const swaps = new Map<string, HTMLLinkElement>();

/** What the service says about the page: the labels of the modules it loads, their addresses, and the run of the service that wrote it. */
const page = (() => {
  try {
    return JSON.parse(document.getElementById('core-page')?.textContent || 'null') as { modules: string[]; addresses: string[]; instance?: string; seq?: number } | null;
  } catch {
    return null;
  }
})();
const onPage = (module: string): boolean => page === null || page.modules.includes(module);

// Reloading on a code change is on unless turned off: `?reload=false` in the page's address,
// or the overlay's toggle, which the page remembers (README "Preview and stylesheet push").
const RELOAD_KEY = 'core-reload-on-code';
let reloadToggled: boolean | null = null;
function reloadsOnCode(): boolean {
  if (reloadToggled !== null) return reloadToggled;
  const asked = new URLSearchParams(location.search).get('reload');
  if (asked === 'false' || asked === 'true') return asked === 'true';
  try {
    return localStorage.getItem(RELOAD_KEY) !== 'false';
  } catch {
    return true;
  }
}
function toggleReload(on: boolean): void {
  reloadToggled = on;
  // The toggle now decides: an address that says otherwise would undo it at the next reload.
  const address = new URL(location.href);
  if (address.searchParams.has('reload')) {
    address.searchParams.delete('reload');
    history.replaceState(history.state, '', address.href);
  }
  try {
    localStorage.setItem(RELOAD_KEY, String(on));
  } catch {
    // storage refused: the toggle holds for this page only
  }
}

let reloading = false;
function reload(): void {
  if (reloading) return;
  reloading = true;
  location.reload();
}

/** Modules whose code changed while reloading was off: the overlay says the page runs older code. */
const changedCode = new Set<string>();
// The code this page runs that the service no longer serves (an address and its status): '' for
// none. Shown above the overlay's problems while they stand (README "Preview and stylesheet push").
let held = '';
// The line is for a page whose modules ran: a page that failed to load runs nothing, the page
// loaded now is this one, and it shows the problems only (README "Preview and stylesheet push").
let entryRan = false;
const failedToLoad = (): boolean => failedOn.size > 0 || failedUnnamed;
// The diagnostics of the page served now that no message tells this page: of modules it does not
// load (it was served by another run, or its import map names others now), or of the page itself
// (`PREVIEW_` kinds), shown with this page's own; and
// those modules, each message of which asks the service again: their fix is what reloads this
// page into the one served now (README "Preview and stylesheet push").
const SERVED = 'served';
const servedBroken = new Set<string>();

// The asset addresses this page fetched without a version (`v`), by path: a plain string in code,
// another module's asset, a shared file's, a CSS module script's `url()`. Chromium keeps an image
// by its address for as long as the page lives, so only a reload shows a new one there (README
// "Preview and stylesheet push"). An observer, as the resource timeline keeps 250 entries only.
// With each, the hash of the bytes last fetched (the asset answer's `Server-Timing`): a page that
// reconnects asks each address again, and one answering other bytes was saved while it was away.
const fetchedPlain = new Map<string, string | null>();
const plainPath = (address: string): string | null => {
  try {
    const url = new URL(address, location.href);
    return url.origin === location.origin && url.pathname.startsWith('/m/') && !url.searchParams.has('v') ? decodeURIComponent(url.pathname) : null;
  } catch {
    return null;
  }
};
const hashOf = (etag: string | null | undefined): string | null => etag?.replace(/^W\/|"/g, '') || null;
const notePlain = (entries: PerformanceEntryList): void => {
  for (const entry of entries) {
    const fetched = plainPath(entry.name);
    if (fetched === null) continue;
    const timing = (entry as PerformanceResourceTiming).serverTiming;
    // Outside a secure context (a page at another host than localhost, over http) the browser
    // hides `Server-Timing`: the hash is asked then, as near the fetch as the page can.
    if (timing === undefined) {
      if (!fetchedPlain.has(fetched)) void currentHash(fetched).then((hash) => fetchedPlain.set(fetched, fetchedPlain.get(fetched) ?? hash));
      fetchedPlain.set(fetched, fetchedPlain.get(fetched) ?? null);
      continue;
    }
    const hash = timing.find((metric) => metric.name === 'asset')?.description || null;
    if (hash !== null || !fetchedPlain.has(fetched)) fetchedPlain.set(fetched, hash);
  }
};
/** The timelines of this page and of every frame of the same origin in it, however deep: a frame's fetches are in its own. */
function timelines(): PerformanceEntryList {
  const entries = [...performance.getEntriesByType('resource')];
  const visit = (frames: WindowProxy) => {
    for (let index = 0; index < frames.length; index += 1) {
      try {
        // A frame of another origin throws here (its timeline is its own); `srcdoc` is this origin's.
        const frame = frames[index]!;
        entries.push(...frame.performance.getEntriesByType('resource'));
        visit(frame);
      } catch {
        // another origin: what it fetched is none of this page's addresses
      }
    }
  };
  visit(window);
  return entries;
}
try {
  new PerformanceObserver((list) => notePlain(list.getEntries())).observe({ type: 'resource', buffered: true });
} catch {
  // no resource timing: the timeline is read when an asset changes
}
/** Whether the page, or a frame of it, fetched `href`, an asset's plain address, without a version (a fetch ended this instant included). */
function fetchedWithoutVersion(href: string): boolean {
  notePlain(timelines());
  const asked = plainPath(href);
  return asked !== null && fetchedPlain.has(asked);
}
/** The hash of the bytes the service answers for an asset's plain address now; null for an error or no answer. */
async function currentHash(address: string): Promise<string | null> {
  try {
    const answer = await fetch(address, { method: 'HEAD', cache: 'no-store' });
    return answer.ok ? hashOf(answer.headers.get('etag')) : null;
  } catch {
    return null;
  }
}
/** The plain addresses fetched whose asset answers other bytes now (saved while the service was away). */
async function assetsSavedMeanwhile(): Promise<string[]> {
  notePlain(timelines());
  const saved: string[] = [];
  for (const [address, hash] of fetchedPlain) {
    if (hash === null) continue;
    // A deleted asset answers 404: its module's `invalid` tells it, and a reload would fail on it.
    const now = await currentHash(address);
    if (now !== null && now !== hash) saved.push(address);
  }
  return saved;
}

// A page that failed to load: the modules it failed on (by label), and whether it failed on
// something that names no module (the bundle, a specifier): then any rebuild of the page's
// modules may fix it. A page that reloads into the same failure waits for the next change.
const failedOn = new Set<string>();
let failedUnnamed = false;
const moduleOfAddress = (address: string): string | null => {
  const match = /^\/m\/(.+?@[^/]+)\/modules\/([^?]+)/.exec(address);
  return match ? `${match[1]}/${match[2]}` : null;
};
function builtAgain(module: string): void {
  if (failedOn.size === 0 && !failedUnnamed) return;
  failedOn.delete(module);
  if (failedOn.size === 0) reload();
}

const hasSyntaxProblem = (): boolean => [...warnings.values()].some((list) => list.some((warning) => warning.kind === 'CSS_SYNTAX'));

function swapSheet(module: string, href: string): void {
  // `data-core-incoming` marks a sheet still loading; its value is empty, so test presence.
  const current = [...document.querySelectorAll<HTMLLinkElement>('link[data-core-styles]')].filter((link) => link.dataset.coreStyles === module && link.dataset.coreIncoming === undefined);
  replaceLinks(module, current, href);
}

function replaceLinks(key: string, current: HTMLLinkElement[], href: string): void {
  if (current.length === 0) return;
  swaps.get(key)?.remove(); // a newer sheet supersedes one still loading
  const incoming = current[current.length - 1]!.cloneNode() as HTMLLinkElement;
  incoming.dataset.coreIncoming = '';
  incoming.href = new URL(href, location.href).href;
  swaps.set(key, incoming);
  incoming.addEventListener('load', () => {
    if (swaps.get(key) !== incoming) return;
    swaps.delete(key);
    delete incoming.dataset.coreIncoming;
    for (const link of current) link.remove();
  });
  incoming.addEventListener('error', () => {
    if (swaps.get(key) === incoming) swaps.delete(key);
    incoming.remove(); // the old sheet stays: the last good style
  });
  current[current.length - 1]!.after(incoming);
}

// The bundled preview links one joined sheet for every module, in parts where a CDN's sheet
// stands between (README "The bundled preview"): a changed stylesheet swaps each part that
// changed for the current one, in its place, named by its content hash (the ETag the service
// answers for the part's plain address). A sheet that cannot be joined now (a broken
// stylesheet) answers an error, and the last good one stays.
// One look at a time: a new connection hears the warnings of every module at once, each a reason
// to look, and a page of many modules would ask the same HEAD for each. A reason that comes while
// a look is under way makes one more look after it, which sees everything up to then.
let bundleLook: Promise<void> | null = null;
let bundleLookAgain = false;
function swapBundle(): void {
  if (bundleLook) {
    bundleLookAgain = true;
    return;
  }
  bundleLook = lookAtBundle().finally(() => {
    bundleLook = null;
    if (!bundleLookAgain) return;
    bundleLookAgain = false;
    swapBundle();
  });
}

async function lookAtBundle(): Promise<void> {
  const links = [...document.querySelectorAll<HTMLLinkElement>('link[data-core-bundle]:not([data-core-incoming])')];
  // The joined sheet holds a sheet with a syntax problem as it is: keep the last good one.
  if (hasSyntaxProblem()) return;
  const parts = [...new Set(links.map((link) => link.dataset.coreBundle!))];
  // Asked together: a part's answer does not wait for another's.
  await Promise.all(parts.map((plain) => lookAtPart(plain, links.filter((link) => link.dataset.coreBundle === plain))));
}

async function lookAtPart(plain: string, current: HTMLLinkElement[]): Promise<void> {
  let hash: string | null = null;
  try {
    const answer = await fetch(plain, { method: 'HEAD', cache: 'no-store' });
    hash = answer.ok ? (answer.headers.get('etag')?.replace(/^W\/|"/g, '') ?? null) : null;
  } catch {
    hash = null;
  }
  // A page being reloaded (a code change came after the stylesheet's) gets the sheet with its
  // reload: swapped into the page being left, it would show the change before the reload.
  if (hash === null || reloading) return;
  const url = new URL(plain, location.href);
  url.searchParams.set('v', hash);
  if (current.some((link) => link.href === url.href)) return;
  replaceLinks(`bundle ${plain}`, current, url.href);
}

function refreshAllSheets(): void {
  for (const link of document.querySelectorAll<HTMLLinkElement>('link[data-core-styles]:not([data-core-incoming])')) {
    const url = new URL(link.href);
    url.searchParams.set('v', `r${Date.now().toString(36)}`);
    swapSheet(link.dataset.coreStyles!, url.href);
  }
  swapBundle();
}

// The overlay's title says what failed, as each kind of diagnostic is (README "Preview and
// stylesheet push"): a broken manifest is no build, a page that could not load its modules
// built them, and a service that does not answer did neither.
const TITLES: Record<string, string> = {
  MANIFEST_INVALID: 'Manifest invalid',
  NO_PUBLIC_MODULE: 'Manifest incomplete',
  EXPORTS_NO_SOURCE: 'Manifest incomplete',
  EXPORTS_NAME_UNPUBLISHABLE: 'Manifest incomplete',
  LOAD_FAILED: 'Load failed',
  SERVICE_UNREACHABLE: 'Service unreachable',
  PREVIEW_VERSION_UNRESOLVED: 'Version unresolved',
};
const titleOf = (kind: string): string => TITLES[kind] ?? 'Build failed';

const describe = (d: Diagnostic, withColumn: boolean): string => (d.file ? `${d.file}${d.line ? `:${d.line}${withColumn && d.column ? `:${d.column}` : ''}` : ''}` : (d.module ?? ''));

const overlay = (() => {
  let host: HTMLElement | null = null;
  let shadow: ShadowRoot | null = null;
  const ensure = () => {
    if (host) return;
    host = document.createElement('core-overlay');
    shadow = host.attachShadow({ mode: 'open' });
    shadow.innerHTML = `<style>
      :host { position: fixed; inset: auto 1rem 1rem 1rem; z-index: 2147483647; font: 13px/1.45 ui-monospace, Menlo, Consolas, monospace; }
      section { background: #1e1e1e; color: #f2f2f2; border-left: 4px solid #ff5555; border-radius: 6px; padding: .75rem 1rem; max-height: 50vh; overflow: auto; box-shadow: 0 8px 30px rgba(0,0,0,.35); }
      header { display: flex; gap: 1rem; justify-content: space-between; color: #ff8080; font-weight: bold; margin-bottom: .5rem; }
      header label { margin-left: auto; color: #aaa; font-weight: normal; cursor: pointer; }
      button { all: unset; cursor: pointer; color: #aaa; }
      .where { color: #8cc8ff; } .kind { color: #ffcb6b; } li { margin: .35rem 0; white-space: pre-wrap; } ul { margin: 0; padding-left: 1.1rem; }
      pre { margin: .3rem 0 0; color: #d0d0d0; overflow-x: auto; }
      .held { margin: 0 0 .5rem; color: #ffcb6b; white-space: pre-wrap; } .held:empty { display: none; }
    </style><section role="alert"><header><span class="title"></span><label><input type="checkbox" class="reload"> reload on code changes</label><button title="Hide until the next change">✕</button></header><p class="held"></p><ul></ul></section>`;
    shadow.querySelector('button')!.addEventListener('click', () => host?.remove());
    shadow.querySelector<HTMLInputElement>('input.reload')!.addEventListener('change', (event) => {
      const on = (event.target as HTMLInputElement).checked;
      toggleReload(on);
      if (on && changedCode.size > 0) reload();
    });
  };
  return {
    render() {
      const errors = [...problems.entries()].flatMap(([module, diagnostics]) => diagnostics.map((d) => ({ ...d, module: d.module ?? module })));
      const syntax = [...warnings.entries()].flatMap(([module, list]) => list.filter((d) => d.kind === 'CSS_SYNTAX').map((d) => ({ ...d, module: d.module ?? module })));
      const code = [...changedCode].map((module) => ({ kind: '', module, message: 'its code changed: reload the page to run it (reloading on code changes is off)' }) as Diagnostic);
      const all = [...errors, ...syntax, ...code];
      // The pill hides under problems, not under a notice of changed code: it sits above that.
      const shownAlone = errors.length === 0 && syntax.length === 0;
      if (all.length === 0) {
        host?.remove();
        warningsPill.render(true, 0);
        return;
      }
      ensure();
      shadow!.querySelector('.title')!.textContent = errors.length > 0 ? [...new Set(errors.map((d) => titleOf(d.kind)))].join(' · ') : syntax.length > 0 ? 'Stylesheet kept: CSS syntax problem' : 'Code changed';
      shadow!.querySelector<HTMLInputElement>('input.reload')!.checked = reloadsOnCode();
      // Not a problem of its own: what the problems below mean for the code this page runs.
      shadow!.querySelector('.held')!.textContent =
        held && errors.length > 0 && entryRan && !failedToLoad() ? `This page runs the code it loaded before these problems: ${held} now, so a page loaded now would not run it. It is not reloaded into that failure; fix the problems and it goes on.` : '';
      shadow!.querySelector('ul')!.replaceChildren(
        ...all.map((d) => {
          const item = document.createElement('li');
          item.innerHTML = `<span class="where"></span> <span class="kind"></span><div class="message"></div>`;
          item.querySelector('.where')!.textContent = describe(d, true);
          item.querySelector('.kind')!.textContent = d.kind;
          item.querySelector('.message')!.textContent = d.message;
          if (d.frame) {
            const frame = document.createElement('pre');
            frame.className = 'frame';
            frame.textContent = d.frame;
            item.append(frame);
          }
          return item;
        }),
      );
      if (!host!.isConnected) document.documentElement.append(host!);
      warningsPill.render(shownAlone, shownAlone ? host!.getBoundingClientRect().height : 0);
    },
  };
})();

// Warnings never block the page: a small pill that opens their list, apart from the errors,
// updated as the service pushes them. A CSS syntax problem is in the overlay instead.
const warningsPill = (() => {
  let host: HTMLElement | null = null;
  let shadow: ShadowRoot | null = null;
  return {
    /** `above`: the height of a notice under it, in pixels. */
    render(visible: boolean, above: number) {
      const shown = [...warnings.entries()].flatMap(([module, list]) => list.filter((d) => d.kind !== 'CSS_SYNTAX').map((d) => ({ ...d, module: d.module ?? module })));
      if (!visible || shown.length === 0) {
        host?.remove();
        return;
      }
      if (!host) {
        host = document.createElement('core-warnings');
        shadow = host.attachShadow({ mode: 'open' });
        shadow.innerHTML = `<style>
          :host { position: fixed; right: 1rem; bottom: 1rem; z-index: 2147483646; font: 12px/1.45 ui-monospace, Menlo, Consolas, monospace; }
          details { background: #1e1e1e; color: #f2f2f2; border-left: 4px solid #e5b93a; border-radius: 6px; padding: .4rem .8rem; max-width: 48rem; max-height: 40vh; overflow: auto; }
          summary { cursor: pointer; color: #ffcb6b; } li { margin: .3rem 0; white-space: pre-wrap; } ul { margin: .4rem 0 0; padding-left: 1.1rem; } .where { color: #8cc8ff; }
        </style><details><summary></summary><ul></ul></details>`;
      }
      shadow!.querySelector('summary')!.textContent = `▲ ${shown.length} warning${shown.length === 1 ? '' : 's'}`;
      shadow!.querySelector('ul')!.replaceChildren(
        ...shown.map((d) => {
          const item = document.createElement('li');
          item.innerHTML = '<span class="where"></span> <span class="kind"></span> <span class="message"></span>';
          item.querySelector('.where')!.textContent = describe(d, false);
          item.querySelector('.kind')!.textContent = d.kind;
          item.querySelector('.message')!.textContent = d.message;
          return item;
        }),
      );
      host.style.bottom = above > 0 ? `calc(1.5rem + ${above}px)` : '';
      if (!host.isConnected) document.documentElement.append(host);
    },
  };
})();

function handle(message: Message): void {
  // The page is being left for its reload, which brings whatever changed.
  if (reloading) return;
  // Under the key the page was served them with (diagnostics of no module).
  if (message.type === 'workspace') {
    const fixed = message.diagnostics.length < (problems.get('')?.length ?? 0);
    if (message.diagnostics.length > 0) problems.set('', message.diagnostics);
    else problems.delete('');
    overlay.render();
    // A manifest fixed may be what the page failed on: a package whose package.json was broken
    // answers that problem, not its code (README "Workspaces"), and comes back with no build.
    if (fixed && (failedOn.size > 0 || failedUnnamed)) reload();
    else askService();
    return;
  }
  // Whichever module the page loads: another module's code may name the asset by its address.
  if (message.type === 'asset') {
    if (fetchedWithoutVersion(message.href)) codeChanged(message.module);
    return;
  }
  if (!onPage(message.module)) {
    if ((message.type === 'valid' || message.type === 'code') && (failedOn.size > 0 || failedUnnamed)) askService();
    else if (servedBroken.has(message.module) && message.type !== 'warnings') askService();
    return;
  }
  // A problem of the page served now, shown for this module before its message came, may be one
  // this message tells or ends: asked again, it is shown once, and goes with its fix.
  if (message.type !== 'warnings' && problems.get(SERVED)?.some((d) => d.module === message.module)) askService();
  if (message.type === 'invalid') {
    problems.set(message.module, message.diagnostics);
    overlay.render();
    return;
  }
  if (message.type === 'warnings') {
    if (message.warnings.length > 0) warnings.set(message.module, message.warnings);
    else warnings.delete(message.module);
    overlay.render();
    swapBundle();
    return;
  }
  if (problems.delete(message.module)) overlay.render();
  // Any module built again may change the bundled sheet, one left out while broken included.
  swapBundle();
  if (message.type === 'styles') swapSheet(message.module, message.href);
  if (message.type === 'valid' || message.type === 'code') builtAgain(message.module);
  if (message.type === 'code') codeChanged(message.module);
}

// One mechanism asks the service about this page, one question at a time (a message that comes
// meanwhile asks once more when it is answered, which sees everything up to then), never on a
// clock (README "Preview and stylesheet push"). It is asked:
// - by a page that failed to load, on each `workspace` message and each build of a module not on
//   it: what it failed on may be fixed by a module it does not load yet (a package added and
//   built, a `/cdn/` address listed). It reloads when the page served now is whole and other than
//   this one, whatever the setting; the same page again waits for the next change, never loops;
// - by a page that runs, on each `workspace` message (a package renamed under its importers maps
//   their import elsewhere with no code of the page changed): another page served now ends this
//   one as a fresh load would, as a `code` message does (with reloading off, the overlay says so);
// - on reconnecting, or a first connection reaching another run: the push tells changes only, and
//   a service that was away saw none of those made meanwhile. The page served now names the code
//   it would load, by content hash, as for a `workspace` message; and each asset address the page
//   fetched without a version is asked again: other bytes than it got mean the asset was saved
//   meanwhile, the same as an `asset` message.
// While the page served now has diagnostics, this one keeps running, as for an `invalid` message:
// the service sends them on connecting, and the fix is a message of its own. When a module this
// page runs is no longer served (its address answers an error: a package name two packages
// write), the overlay says that the code running is the one loaded before (`held`).
let asking: Promise<void> | null = null;
let askAgain = false;
let assetsDue = false;
function askService(withAssets = false): void {
  assetsDue ||= withAssets;
  if (asking) {
    askAgain = true;
    return;
  }
  asking = (async () => {
    do {
      askAgain = false;
      await compareWithService();
    } while (askAgain && !reloading);
  })().finally(() => {
    asking = null;
  });
}

/** The one answer to code that moved under the page (a `code` message, an asset saved, another page served): a reload, or with reloading off the overlay's notice. */
function codeChanged(module: string): void {
  if (reloadsOnCode()) return reload();
  changedCode.add(module);
  overlay.render();
}

async function compareWithService(): Promise<void> {
  const failed = failedOn.size > 0 || failedUnnamed;
  const withAssets = assetsDue;
  assetsDue = false;
  const served = await servedPage();
  if (reloading) return;
  showServedProblems(served);
  if (served !== null && !served.broken && servedOtherwise(served)) {
    if (failed) return reload();
    codeChanged(location.pathname);
    if (reloading) return;
  }
  if (failed) return;
  for (const address of withAssets ? await assetsSavedMeanwhile() : []) {
    if (reloading) return;
    codeChanged(address);
  }
  if (reloading) return;
  const notServed = served === null ? null : served.broken ? await addressNotServed() : '';
  if (notServed !== null && notServed !== held) {
    held = notServed;
    overlay.render();
  }
}

/**
 * Shows why the page served now is broken where no message tells this page: a module it does not
 * load (the push tells of its own), or the page itself (a `PREVIEW_` diagnostic, of the import map
 * the service writes, such as an import left without a version by a package renamed under its
 * importer), unless the page already shows it.
 */
function showServedProblems(served: Awaited<ReturnType<typeof servedPage>>): void {
  servedBroken.clear();
  const foreign = (served?.diagnostics ?? []).filter((d) => (d.module !== undefined && d.module !== '' && !onPage(d.module)) || (d.kind.startsWith('PREVIEW_') && !shownAlready(d)));
  for (const module of served?.broken ? served.modules : []) if (!onPage(module)) servedBroken.add(module);
  if (foreign.length === 0 && !problems.has(SERVED)) return;
  if (foreign.length > 0) problems.set(SERVED, foreign);
  else problems.delete(SERVED);
  overlay.render();
}

/** Whether the overlay shows this diagnostic under another key than the served page's (the page was served with it). */
function shownAlready(diagnostic: Diagnostic): boolean {
  return [...problems.entries()].some(([key, list]) => key !== SERVED && list.some((d) => d.kind === diagnostic.kind && d.message === diagnostic.message));
}

/**
 * Whether the service would serve this page with other modules or addresses, or another import
 * map (README "Preview and stylesheet push"). Only the entries its own map holds count, by
 * address without the version: the map lists every module of the workspace, so a module
 * declared, or a version of a module whose code changes the push tells as `code`, is no change of
 * what this page imports. A failed page too: compared whole, a module declared elsewhere reloaded
 * it into the same failure; what it failed on is an entry it holds mapped elsewhere now (a
 * package listed), or a module it loads.
 */
function servedOtherwise(served: NonNullable<Awaited<ReturnType<typeof servedPage>>>): boolean {
  if (page === null) return false;
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((item, index) => item === b[index]);
  return !(same(page.modules, served.modules) && same(page.addresses, served.addresses) && sameEntriesHeld(importMapOf(document), served.imports));
}

/** The first address of this page's own code (same origin) that answers an error now, with its status; '' for none. */
async function addressNotServed(): Promise<string> {
  for (const address of page?.addresses ?? []) {
    const url = new URL(address, location.href);
    if (url.origin !== location.origin) continue;
    try {
      const answer = await fetch(url, { method: 'HEAD', cache: 'no-store' });
      if (!answer.ok) return `${url.pathname} answers ${answer.status}`;
    } catch {
      return '';
    }
  }
  return '';
}

/** What the service says about this page now; null for an error page or no answer (the push tells the rest). */
async function servedPage(): Promise<(NonNullable<typeof page> & { broken: boolean; diagnostics: Diagnostic[]; imports: Record<string, string> }) | null> {
  try {
    const answer = await fetch(location.href, { headers: { accept: 'text/html' }, cache: 'no-store' });
    if (!answer.ok) return null;
    const served = new DOMParser().parseFromString(await answer.text(), 'text/html');
    const described = JSON.parse(served.getElementById('core-page')?.textContent || 'null') as typeof page;
    const diagnostics = JSON.parse(served.getElementById('core-diagnostics')?.textContent || '[]') as Diagnostic[];
    return described && { ...described, broken: diagnostics.length > 0, diagnostics, imports: importMapOf(served) };
  } catch {
    return null;
  }
}

/** The `imports` of a page's import map; none when it has none, or none readable. */
function importMapOf(doc: Document): Record<string, string> {
  try {
    return (JSON.parse(doc.querySelector('script[type="importmap"]')?.textContent || '{}') as { imports?: Record<string, string> }).imports ?? {};
  } catch {
    return {};
  }
}

/** Whether every specifier of `held` is still in `now`, mapped to the same address but for its `v` version. */
function sameEntriesHeld(held: Record<string, string>, now: Record<string, string>): boolean {
  return Object.keys(held).every((specifier) => Object.hasOwn(now, specifier) && withoutVersion(held[specifier]!) === withoutVersion(now[specifier]!));
}

function withoutVersion(address: string): string {
  try {
    const url = new URL(address, location.href);
    url.searchParams.delete('v');
    return url.href;
  } catch {
    return address;
  }
}

// Under this key while the service does not answer: shown once a try to connect again failed,
// not when a connection closes (a restart reconnects at once, and the page shows no flash).
const UNREACHABLE = 'service';

// The run of the service the page last heard from: at first the one that wrote the page.
let instance = page?.instance ?? null;

// What was broken before may be fixed now; the service first sends what is broken now
// (channel.ts), and the sheets are fetched again for what changed meanwhile.
function catchUp(): void {
  problems.clear();
  warnings.clear();
  overlay.render();
  refreshAllSheets();
  askService(true);
}

function connect(delay = 250, reconnecting = false): void {
  const socket = new WebSocket(new URL('/events', location.href.replace(/^http/, 'ws')));
  let opened = false;
  socket.addEventListener('open', () => {
    opened = true;
    delay = 250;
    problems.delete(UNREACHABLE);
    if (reconnecting) catchUp();
  });
  socket.addEventListener('message', (event) => {
    try {
      const message = JSON.parse(String(event.data)) as ChannelMessage;
      if (message.type !== 'hello') return handle(message);
      // A first connection can reach another run than the page's: the service restarted
      // between the page's load and this connection, and no close told the page so.
      const another = instance !== null && message.instance !== instance;
      instance = message.instance;
      if (another && !reconnecting && !reloading) catchUp();
      // Or the same run, in a later state: what changed between the page's writing and this
      // connection was told to the pages connected then (a save while this one loaded). Its
      // sheets are fetched again and its own page asked for, as a reconnect does; what is
      // broken now the greeting tells.
      else if (!another && !reconnecting && !reloading && page?.seq !== undefined && message.seq !== page.seq) {
        refreshAllSheets();
        askService(true);
      }
    } catch (error) {
      console.warn('[core] unreadable message from /events', error);
    }
  });
  socket.addEventListener('close', () => {
    if (!opened && reconnecting && !problems.has(UNREACHABLE) && !reloading) {
      problems.set(UNREACHABLE, [{ kind: 'SERVICE_UNREACHABLE', module: location.origin, message: 'the service does not answer (stopped, or restarting): this page hears no change until it is back, and connects again by itself' }]);
      overlay.render();
    }
    setTimeout(() => connect(Math.min(delay * 2, 2000), true), delay);
  });
}

// A page that fails to load says why, in the overlay: a module that answers an error (404, a
// failed build), one that does not parse, a bare specifier missing from the import map, an
// address that cannot be fetched at all (a CDN out of reach).
function loadFailed(address: string, message: string): void {
  // A module's address is shown without its query: the variant's options and content hash, the
  // same on every address of the page, made each line of the overlay three lines long.
  problems.set(`load ${address}`, [{ kind: 'LOAD_FAILED', message, module: address.replace(/^(\/m\/[^?]*)\?.*$/, '$1') }]);
  const module = moduleOfAddress(address);
  if (module !== null) failedOn.add(module);
  else failedUnnamed = true;
  overlay.render();
}

async function diagnoseEntry(): Promise<void> {
  const map = importMapOf(document);
  let found = 0;
  // Only what the page loads: a module of the entry's package it never imports is no reason.
  for (const address of new Set(Object.values(map).filter((address) => page === null || page.addresses.includes(address)))) {
    const url = new URL(address, location.href);
    const sameOrigin = url.origin === location.origin;
    try {
      const answer = await fetch(url, sameOrigin ? {} : { mode: 'no-cors' });
      if (!sameOrigin || answer.ok) continue;
      let reason = `${answer.status} ${answer.statusText}`;
      try {
        const body = (await answer.json()) as { code?: string; message?: string };
        if (body.code) reason = `${answer.status} ${body.code}: ${body.message ?? ''}`;
      } catch {
        // not a JSON error
      }
      loadFailed(url.pathname + url.search, reason);
      found += 1;
    } catch {
      loadFailed(url.href, 'could not be fetched (network error: the origin is out of reach, or refuses this page)');
      found += 1;
    }
  }
  if (found > 0) return;
  // Every address answers: the reason is in the graph itself (a specifier not in the import map).
  const entry = /import\s+("[^"]+")/.exec(document.querySelector('script[type="module"]:not([src])')?.textContent ?? '')?.[1];
  if (!entry) return;
  const specifier = JSON.parse(entry) as string;
  try {
    await import(specifier);
  } catch (error) {
    loadFailed(specifier, error instanceof Error ? error.message : String(error));
  }
}

window.addEventListener('error', (event) => {
  // A module that does not parse or throws while it runs: its address and the message.
  if (event.filename) loadFailed(new URL(event.filename).pathname + new URL(event.filename).search, `${event.message}${event.lineno ? ` (line ${event.lineno}${event.colno ? `, column ${event.colno}` : ''})` : ''}`);
});
let entryFetchFailed = false;
document.querySelector('script[type="module"]:not([src])')?.addEventListener('error', () => {
  entryFetchFailed = true;
  void diagnoseEntry();
});
// The page's module script runs before `DOMContentLoaded`, or fires `error` before it when its
// modules could not be fetched (an inline module script fires no `load` in Chromium).
document.addEventListener('DOMContentLoaded', () => {
  entryRan = !entryFetchFailed;
  if (held) overlay.render();
});

// Diagnostics and warnings known when the page was served.
for (const [id, into] of [['core-diagnostics', problems], ['core-warnings', warnings]] as const) {
  try {
    for (const diagnostic of JSON.parse(document.getElementById(id)?.textContent || '[]') as Diagnostic[]) {
      const module = diagnostic.module ?? '';
      into.set(module, [...(into.get(module) ?? []), diagnostic]);
    }
  } catch {
    // none readable
  }
}
overlay.render();
connect();

export {};
