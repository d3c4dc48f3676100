// The module list (filter, search, keyboard) and one module's detail; the live view and the
// replay show the same list, from a live report or from a replayed one.
import type { Details, ModuleDetails } from '../details.js';
import type { ModuleReport, Report } from '../../store/selectors.js';
import type { Diagnostic } from '../../workspace/diagnostics.js';
import { fill, h } from './dom.js';
import { bytes, clock, duration, place } from './format.js';

/** A module of `/state`; `warnings` when the service reports them. */
export type ShownModule = ModuleReport & { warnings?: Diagnostic[] };

type StatusFilter = 'all' | 'invalid' | 'pending' | 'valid';

export class ModuleTable {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private readonly search: HTMLInputElement;
  private readonly chips: HTMLElement;
  private readonly count: HTMLElement;
  private filter: StatusFilter = 'all';
  private modules: ShownModule[] = [];
  private details = new Map<string, ModuleDetails>();
  private shown: ShownModule[] = [];
  selected: string | null = null;

  constructor(private readonly onSelect: (specifier: string | null) => void) {
    this.search = h('input', { type: 'search', class: 'search', placeholder: 'Filter modules, files, messages  ( / )', 'aria-label': 'Filter modules', oninput: () => this.render() });
    this.chips = h('div', { class: 'chips', role: 'radiogroup', 'aria-label': 'Status' });
    this.count = h('span', { class: 'count' });
    this.body = h('div', { class: 'rows', role: 'listbox', tabindex: '0', 'aria-label': 'Modules', onkeydown: (event: KeyboardEvent) => this.key(event) });
    const head = h('div', { class: 'row head', 'aria-hidden': 'true' }, h('span', null, ''), h('span', null, 'module'), h('span', null, 'platforms'), h('span', { class: 'num' }, 'code'), h('span', { class: 'num' }, 'styles'), h('span', { class: 'num' }, 'last build'));
    this.element = h('section', { class: 'modules' }, h('div', { class: 'toolbar' }, this.search, this.chips, this.count), head, this.body);
  }

  focusSearch(): void {
    this.search.focus();
  }

  update(report: Report, details: Details | null): void {
    this.modules = report.modules as ShownModule[];
    if (details) this.details = new Map(details.modules.map((module) => [module.specifier, module]));
    this.render();
  }

  has(specifier: string): boolean {
    return this.modules.some((m) => m.specifier === specifier);
  }

  module(specifier: string): { module: ShownModule; details: ModuleDetails | undefined } | null {
    const module = this.modules.find((m) => m.specifier === specifier);
    return module ? { module, details: this.details.get(specifier) } : null;
  }

  private render(): void {
    const counts = { all: this.modules.length, invalid: 0, pending: 0, valid: 0 };
    for (const module of this.modules) counts[module.status] += 1;
    fill(
      this.chips,
      (['all', 'invalid', 'pending', 'valid'] as const).map((status) =>
        h('button', { type: 'button', role: 'radio', class: `chip ${status}`, 'aria-checked': String(this.filter === status), onclick: () => ((this.filter = status), this.render()) }, status, h('b', null, counts[status])),
      ),
    );
    const words = this.search.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    this.shown = this.modules.filter((module) => {
      if (this.filter !== 'all' && module.status !== this.filter) return false;
      if (words.length === 0) return true;
      const text = [module.specifier, module.bundler, ...module.diagnostics.flatMap((d) => [d.kind, d.message, d.file ?? '']), ...(module.warnings ?? []).map((d) => d.message)].join(' ').toLowerCase();
      return words.every((word) => text.includes(word));
    });
    this.count.textContent = `${this.shown.length} of ${this.modules.length}`;
    fill(this.body, this.shown.length === 0 ? h('div', { class: 'empty' }, this.modules.length === 0 ? 'no module' : 'no module matches') : this.shown.map((module) => this.row(module)));
    if (this.selected) this.body.setAttribute('aria-activedescendant', rowId(this.selected));
  }

  private row(module: ShownModule): HTMLElement {
    const details = this.details.get(module.specifier);
    const build = details?.lastBuild;
    const problems = module.diagnostics.length + (module.warnings?.length ?? 0);
    return h(
      'div',
      {
        class: `row ${module.status}${module.specifier === this.selected ? ' selected' : ''}`,
        id: rowId(module.specifier),
        role: 'option',
        'aria-selected': String(module.specifier === this.selected),
        dataset: { module: module.specifier, status: module.status },
        onclick: () => this.select(module.specifier),
      },
      h('span', { class: `status ${module.status}`, title: module.status }, module.status),
      h('span', { class: 'name', title: module.specifier }, ...rowName(module), problems > 0 ? h('span', { class: `badge ${module.diagnostics.length ? 'error' : 'warning'}` }, problems) : null),
      h('span', { class: 'dim' }, module.platforms.join(' ')),
      h('span', { class: 'num' }, details?.code ? bytes(details.code.size) : '–'),
      h('span', { class: 'num' }, details?.styles ? bytes(details.styles.size) : '–'),
      h('span', { class: 'num dim' }, build ? `${duration(build.duration)} ${build.reason}` : '–'),
    );
  }

  select(specifier: string | null): void {
    this.selected = specifier;
    this.onSelect(specifier);
    this.render();
    if (specifier) document.getElementById(rowId(specifier))?.scrollIntoView({ block: 'nearest' });
  }

  private key(event: KeyboardEvent): void {
    const index = this.shown.findIndex((module) => module.specifier === this.selected);
    const move = (to: number) => {
      event.preventDefault();
      const target = this.shown[Math.max(0, Math.min(this.shown.length - 1, to))];
      if (target) this.select(target.specifier);
    };
    if (event.key === 'ArrowDown') move(index + 1);
    else if (event.key === 'ArrowUp') move(index <= 0 ? 0 : index - 1);
    else if (event.key === 'Home') move(0);
    else if (event.key === 'End') move(this.shown.length - 1);
    else if (event.key === 'Escape') this.select(null);
  }
}

const rowId = (specifier: string) => `module-${specifier.replace(/[^a-zA-Z0-9_-]/g, '_')}`;

export function renderDiagnostics(list: readonly Diagnostic[], kind: 'error' | 'warning', frames: Record<string, string> = {}): HTMLElement {
  return h(
    'ul',
    { class: `diagnostics ${kind}` },
    list.map((d) =>
      h(
        'li',
        { class: 'diagnostic' },
        h('div', { class: 'where' }, h('span', { class: `kind ${kind}` }, d.kind), d.env ? h('span', { class: 'env' }, `${d.env} build`) : null, d.file ? h('code', { class: 'place' }, place(d)) : null),
        h('div', { class: 'message' }, d.message),
        d.file && d.line && frames[`${d.file}:${d.line}`] ? h('pre', { class: 'frame' }, frames[`${d.file}:${d.line}`]) : null,
      ),
    ),
  );
}

/** Which modules the detail can link to, and how it selects one (the module list does both). */
export interface ModuleLinks {
  has(specifier: string): boolean;
  select(specifier: string): void;
}

/** One module's detail: status, problems, outputs, last build, imports and importers. */
export function renderModuleDetail(
  container: HTMLElement,
  module: ShownModule | null,
  details: ModuleDetails | undefined,
  links: ModuleLinks,
  extra: Node | null = null,
  frames: Record<string, string> = {},
): void {
  if (!module) {
    fill(container, h('div', { class: 'empty' }, 'Select a module (Tab to the list, then ↑ ↓)'));
    return;
  }
  const link = (specifier: string) =>
    h('button', { type: 'button', class: 'link', onclick: () => links.select(specifier) }, specifier);
  const outputs = details
    ? [
        details.code ? ['code', details.code] as const : null,
        details.styles ? ['styles', details.styles] as const : null,
      ].filter((entry) => entry !== null)
    : [];
  const build = details?.lastBuild;
  fill(
    container,
    h('header', { class: 'detail-head' }, h('span', { class: `status ${module.status}` }, module.status), h('h2', null, module.specifier), h('span', { class: 'dim' }, `${module.version} · ${module.bundler} · ${module.platforms.join(', ')}`)),
    extra ?? null,
    module.diagnostics.length ? h('section', null, h('h3', null, `Diagnostics (${module.diagnostics.length})`), renderDiagnostics(module.diagnostics, 'error', frames)) : null,
    module.warnings?.length ? h('section', null, h('h3', null, `Warnings (${module.warnings.length})`), renderDiagnostics(module.warnings, 'warning', frames)) : null,
    // Valid itself, yet a page that loads it fails on these (README "Addresses").
    module.invalidImports?.length
      ? h(
          'section',
          { class: 'invalid-imports' },
          h('h3', null, `Imports invalid modules (${module.invalidImports.length})`),
          h('p', { class: 'dim' }, 'This module builds, but a page that loads it fails until these build:'),
          h('ul', null, module.invalidImports.map((specifier) => h('li', null, link(specifier)))),
        )
      : null,
    h(
      'section',
      null,
      h('h3', null, 'Outputs'),
      outputs.length || details?.assets.length
        ? h(
            'table',
            { class: 'kv outputs' },
            outputs.map(([kind, output]) => h('tr', null, h('th', null, kind), h('td', null, h('a', { href: output.address, target: '_blank', rel: 'noopener' }, output.address)), h('td', { class: 'num' }, bytes(output.size)), h('td', null, h('code', { class: 'hash', title: 'content hash (the ETag)' }, output.hash)))),
            (details?.assets ?? []).map((asset) => h('tr', null, h('th', null, 'asset'), h('td', { colspan: '3' }, h('a', { href: asset.address, target: '_blank', rel: 'noopener' }, asset.address)))),
          )
        : h('p', { class: 'dim' }, module.status === 'pending' ? 'not built yet' : 'no output of the current sources'),
    ),
    build
      ? h(
          'section',
          null,
          h('h3', null, 'Last build'),
          h(
            'table',
            { class: 'kv' },
            h('tr', null, h('th', null, 'build'), h('td', null, `#${build.build} · ${build.outcome}`)),
            h('tr', null, h('th', null, 'reason'), h('td', null, build.reason)),
            h('tr', null, h('th', null, 'duration'), h('td', null, duration(build.duration))),
            h('tr', null, h('th', null, 'incremental'), h('td', null, build.incremental ? 'yes (kept esbuild context)' : 'no')),
            h('tr', null, h('th', null, 'started'), h('td', null, clock(build.started))),
          ),
        )
      : null,
    details
      ? h(
          'section',
          { class: 'graph' },
          h('div', null, h('h3', null, `Imports (${details.imports.length})`), details.imports.length ? h('ul', { class: 'plain' }, details.imports.map((record) => h('li', null, links.has(record.specifier) ? link(record.specifier) : h('code', null, record.specifier), h('span', { class: 'dim' }, ` ${record.file}${record.line ? `:${record.line}` : ''}`)))) : h('p', { class: 'dim' }, 'no bare import')),
          h('div', null, h('h3', null, `Importers (${details.importers.length})`), details.importers.length ? h('ul', { class: 'plain' }, details.importers.map((specifier) => h('li', null, link(specifier)))) : h('p', { class: 'dim' }, 'no workspace module imports it')),
        )
      : null,
    details ? h('p', { class: 'dim small' }, `entry ${details.entry ?? '(none)'} · dir ${details.dir}`) : null,
  );
}

// A package's root module is named by the package alone (`lit`), never by its address segment (`@root`).
const rowName = (module: ShownModule): (HTMLElement | string)[] =>
  module.specifier === module.package ? [module.package] : [h('span', { class: 'pkg' }, `${module.package}/`), module.subpath];
