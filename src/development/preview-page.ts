// The preview page (README "Preview and stylesheet push"): the import map, a linked stylesheet per
// module that has one, the development runtime, and a module script that imports the
// entry and calls nothing: the entry's top-level code mounts the page.
import { moduleLabel } from '../protocol/push.js';
import { bundledSheetOrder, linkedSheets, type CdnSheet, type Preview } from './preview.js';
import { escapeHtml, htmlPage, importMapScript, scriptJson } from '../html-page.js';

export function renderPreviewPage(preview: Preview, runtimeAddress: string, writer: PageWriter): string {
  // The stylesheet order (README "Preview and stylesheet push"): the cascade, what a module
  // imports before the module's own sheet, a CDN's sheet at its place in it; the bundled preview
  // joins the development sheets in this order, and `core dist`'s page links its modules' in it.
  const links = linkedSheets(preview).map((sheet) => ('cdn' in sheet ? cdnSheetLink(sheet.cdn) : `    <link rel="stylesheet" href="${escapeHtml(sheet.module.styles!)}" data-core-styles="${escapeHtml(moduleLabel(sheet.module))}">`));
  // Every module of the graph is fetched at once, not import by import (a waterfall one round
  // trip per level deep): the import map lists exactly the modules reached from the entry's package.
  const preloads = [...new Set(loadedAddresses(preview, preview.imports).filter((address) => address.startsWith('/')))].map(
    (address) => `    <link rel="modulepreload" href="${escapeHtml(address)}">`,
  );
  return renderPage(preview, runtimeAddress, { imports: preview.imports, head: [...links, ...preloads], imported: preview.entry, writer });
}

/** The addresses of the bundled preview's files (README "The bundled preview"). */
export interface BundledAddresses {
  code: string;
  /** Each part of the joined sheet: its address, and the one without its `v` token, which the runtime asks for the current part. */
  styles: { address: string; current: string }[];
}

/**
 * The bundled preview: the same page, its development modules in one script and its
 * stylesheets joined, one part per run of them between two CDN sheets; the import map keeps what
 * stays a separate module.
 */
export function renderBundledPage(preview: Preview, imports: Record<string, string>, addresses: BundledAddresses, runtimeAddress: string, writer: PageWriter, named: Record<string, string> = {}): string {
  const preloads = [addresses.code, ...new Set(loadedAddresses(preview, imports).filter((address) => address.startsWith('/')))].map((address) => `    <link rel="modulepreload" href="${escapeHtml(address)}">`);
  // Where `/preview/` links the sheets each part joins: a CDN's sheet between two parts, as the cascade has it.
  const sheets = bundledSheetOrder(preview).order.map((linked) => {
    if ('cdn' in linked) return cdnSheetLink(linked.cdn);
    const part = addresses.styles[linked.part]!;
    return `    <link rel="stylesheet" href="${escapeHtml(part.address)}" data-core-bundle="${escapeHtml(part.current)}">`;
  });
  // The joined modules' names are in the map for an `import()` by a computed name, never
  // preloaded: the page's own run of them is in the script (README "The bundled preview").
  return renderPage(preview, runtimeAddress, { imports, mapped: { ...imports, ...named }, head: [...sheets, ...preloads], imported: addresses.code, writer });
}

/**
 * The addresses of `imports` the page loads: a module of the entry's package it never imports is
 * not fetched. Nor is an installed package's JSON export (README "The local CDN"): a preload is a
 * script's fetch, and Chromium gave its JavaScript answer to the JSON module script of an import
 * `with { type: 'json' }` at the same address, which then failed.
 */
const loadedAddresses = (preview: Preview, imports: Record<string, string>): string[] =>
  preview.loads.flatMap((specifier) => (specifier in imports && !JSON_ADDRESS.test(imports[specifier]!) ? [imports[specifier]!] : []));

const JSON_ADDRESS = /\.json(?:\?|$)/;

// A sheet a CDN serves (a stylesheet module's, or a left-out script module's at the local CDN's
// `?styles`): never pushed, never joined (README "Stylesheet modules", "The local CDN").
const cdnSheetLink = (sheet: CdnSheet): string => `    <link rel="stylesheet" href="${escapeHtml(sheet.href)}" data-core-cdn-styles="${escapeHtml(sheet.specifier)}">`;

interface PageParts {
  imports: Record<string, string>;
  /** The import map, when it names more than `imports` (the modules the page loads by address). */
  mapped?: Record<string, string>;
  head: string[];
  /** What the page's module script imports: the entry, or the bundle holding it. */
  imported: string;
  writer: PageWriter;
}

/**
 * The run of the service that wrote a page, and the sequence number of the state it was written
 * from (README "Preview and stylesheet push"): a page whose first connection hears another of
 * either may have missed a change, and asks.
 */
export interface PageWriter {
  instance: string;
  seq: number;
}

function renderPage(preview: Preview, runtimeAddress: string, parts: PageParts): string {
  // The runtime names modules as the push channel does: <package>@<version>/<subpath>.
  const labels = new Map(preview.modules.map((module) => [module.specifier, moduleLabel(module)]));
  // The overlay covers what the page loads, and what concerns no module (a broken manifest).
  const loads = new Set(preview.loads);
  const covered = (d: { module?: string }) => d.module === undefined || loads.has(d.module);
  const diagnostics = preview.diagnostics.filter(covered).map((d) => (d.module ? { ...d, module: labels.get(d.module) ?? d.module } : d));
  const warnings = (preview.warnings ?? []).filter(covered).map((d) => (d.module ? { ...d, module: labels.get(d.module) ?? d.module } : d));
  const page = {
    modules: preview.modules.filter((module) => loads.has(module.specifier)).map(moduleLabel),
    addresses: [...new Set([...loadedAddresses(preview, parts.imports), ...(parts.imported.startsWith('/') ? [parts.imported] : [])])],
    instance: parts.writer.instance,
    seq: parts.writer.seq,
  };
  return htmlPage(`${preview.entry} · preview`, [
    // Both pages keep the scopes: what they map are installed packages, never joined (README "The local CDN").
    importMapScript(preview.scopes ? { imports: parts.mapped ?? parts.imports, scopes: preview.scopes } : { imports: parts.mapped ?? parts.imports }),
    ...parts.head,
    `    <script type="application/json" id="core-diagnostics">${scriptJson(diagnostics)}</script>`,
    `    <script type="application/json" id="core-warnings">${scriptJson(warnings)}</script>`,
    `    <script type="application/json" id="core-page">${scriptJson(page)}</script>`,
    `    <script type="module" src="${escapeHtml(runtimeAddress)}"></script>`,
    `    <script type="module">import ${JSON.stringify(parts.imported).replace(/</g, '\\u003c')};</script>`,
  ]);
}
