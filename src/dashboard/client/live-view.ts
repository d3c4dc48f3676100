// The live view: `/state` as Server-Sent Events (statuses and diagnostics, the moment they
// change), `/state/details` fetched again after each change or finished build, and the
// builds of the last minutes on a timeline.
import type { Details } from '../details.js';
import { isStructureWarning, unbuiltByEngine, type Report, type WarningGroup } from '../../store/selectors.js';
import type { Diagnostic } from '../../workspace/diagnostics.js';
import { describeRemoteRestored } from '../../store/events.js';
import { fill, h } from './dom.js';
import { ModuleTable, renderDiagnostics, renderModuleDetail } from './module-view.js';
import { renderTimeline } from './timeline.js';
import { allValidHeading } from './format.js';

const TIMELINE_MS = 5 * 60_000;

export class LiveView {
  readonly element: HTMLElement;
  private readonly table: ModuleTable;
  private readonly detail = h('aside', { class: 'detail', 'aria-label': 'Module detail' });
  private readonly banner = h('section', { class: 'banner' });
  private readonly timeline = h('div', { class: 'timeline' });
  private readonly connection = h('span', { class: 'connection', role: 'status' }, 'connecting…');
  private readonly facts = h('span', { class: 'facts' });
  private report: Report | null = null;
  private details: Details | null = null;
  private fetching: Promise<void> | null = null;
  private again = false;

  constructor() {
    this.table = new ModuleTable(() => this.showDetail());
    this.element = h(
      'div',
      { class: 'view live' },
      h('div', { class: 'subbar' }, this.connection, this.facts),
      this.banner,
      h('div', { class: 'split' }, this.table.element, this.detail),
      h('section', { class: 'timeline-panel' }, h('h3', null, 'Builds · up to the last 5 minutes', h('span', { class: 'legend' }, h('i', { class: 'bar succeeded' }), 'succeeded', h('i', { class: 'bar failed' }), 'failed', h('i', { class: 'bar cancelled' }), 'cancelled', h('i', { class: 'bar running' }), 'running')), this.timeline),
    );
    this.showDetail();
  }

  start(): void {
    const state = new EventSource('/state');
    state.addEventListener('state', (event) => {
      this.report = JSON.parse((event as MessageEvent<string>).data) as Report;
      this.connection.textContent = 'live';
      this.connection.className = 'connection live';
      this.render();
      this.refreshDetails();
    });
    state.addEventListener('error', () => {
      this.connection.textContent = state.readyState === EventSource.CLOSED ? 'disconnected' : 'reconnecting…';
      this.connection.className = 'connection down';
    });
    const log = new EventSource('/log');
    log.addEventListener('log', (event) => {
      const type = (JSON.parse((event as MessageEvent<string>).data) as { type: string }).type;
      if (type.startsWith('build.')) this.refreshDetails();
    });
    // The timeline moves with the clock, builds or not.
    setInterval(() => this.drawTimeline(), 1000);
  }

  focusSearch(): void {
    this.table.focusSearch();
  }

  /** One fetch at a time; changes during it fetch once more after it. */
  private refreshDetails(): void {
    if (this.fetching) {
      this.again = true;
      return;
    }
    this.fetching = fetch('/state/details', { headers: { accept: 'application/json' } })
      .then((response) => (response.ok ? (response.json() as Promise<Details>) : null))
      .then((details) => {
        if (details) this.details = details;
        this.render();
      })
      .catch(() => {})
      .finally(() => {
        this.fetching = null;
        if (this.again) {
          this.again = false;
          this.refreshDetails();
        }
      });
  }

  private render(): void {
    if (!this.report) return;
    this.table.update(this.report, this.details);
    const details = this.details;
    fill(
      this.facts,
      h('span', null, 'CDN ', h('code', null, details ? details.cdnOrigin ?? 'unset' : '…')),
      h('span', null, 'selection ', h('code', null, details ? (details.selection === null ? 'every package' : details.selection.join(', ') || 'none') : '…')),
      details?.preview ? h('span', null, 'preview ', h('code', null, details.preview)) : null,
      // What the team's remote cache gave at start (README "A team's remote cache"): its misses and failures in the title.
      this.report.remoteCache ? h('span', { class: 'remote-cache', title: `${this.report.remoteCache.url}: ${describeRemoteRestored(this.report.remoteCache)}` }, 'team cache ', h('code', null, `${this.report.remoteCache.hits}/${this.report.remoteCache.asked}`)) : null,
      details ? h('span', { class: 'dim' }, `seq ${details.seq}`) : null,
    );
    const packages = details?.packages.filter((p) => !p.development) ?? [];
    const engine = unbuiltByEngine(this.report.modules);
    fill(
      this.banner,
      // Once, not per module (README "When esbuild's process dies").
      engine ? h('p', { class: 'engine-unavailable', role: 'alert' }, h('b', null, 'ENGINE_UNAVAILABLE'), ` esbuild is unavailable (${engine.why}): ${engine.modules.length === 1 ? '1 module' : `${engine.modules.length} modules`} not built. Save a file to build them again.`) : null,
      this.report.diagnostics.length ? h('div', { class: 'workspace-diagnostics' }, h('h3', null, `Workspace (${this.report.diagnostics.length})`), renderDiagnostics(this.report.diagnostics, 'error', this.details?.frames)) : null,
      packages.length ? h('p', { class: 'dim small' }, `From the CDN (not in development): ${packages.map((p) => `${p.name}@${p.version}`).join(', ')}`) : null,
      (this.report.warningGroups ?? []).map((group) => this.renderGroup(this.report!, group)),
    );
    this.showDetail();
    this.drawTimeline();
  }

  // One line per package and kind, counted; opened, each distinct warning once (README "Warnings").
  private renderGroup(report: Report, group: WarningGroup): HTMLElement {
    const distinct = new Map<string, Diagnostic>();
    for (const module of report.modules) {
      if (module.package !== group.package) continue;
      for (const warning of module.warnings ?? []) {
        if (warning.kind === group.kind && isStructureWarning(module, warning)) distinct.set(`${warning.file}:${warning.line}:${warning.column} ${warning.message}`, warning);
      }
    }
    const count = group.count === 1 ? `1 ${group.kind} warning` : `${group.count} ${group.kind} warnings`;
    return h(
      'details',
      { class: 'warning-group', dataset: { package: group.package, kind: group.kind } },
      h('summary', null, h('b', null, group.package), `: ${count} about its own structure, in ${group.modules} module${group.modules === 1 ? '' : 's'}`),
      renderDiagnostics([...distinct.values()], 'warning', this.details?.frames),
    );
  }

  private showDetail(): void {
    const specifier = this.table.selected;
    const found = specifier ? this.table.module(specifier) : null;
    if (!found && this.report) {
      this.showProblems(this.report);
      return;
    }
    renderModuleDetail(this.detail, found?.module ?? null, found?.details, this.table, null, this.details?.frames);
  }

  /** With no module selected: every invalid module and its diagnostics, at a glance. */
  private showProblems(report: Report): void {
    const invalid = report.modules.filter((module) => module.status === 'invalid');
    const pending = report.modules.filter((module) => module.status === 'pending').length;
    const select = (specifier: string) => h('button', { type: 'button', class: 'link', onclick: () => this.table.select(specifier) }, specifier);
    // The modules esbuild could not build are named together under the banner's one line; their other errors as any.
    const engine = unbuiltByEngine(invalid);
    const errorsOf = (module: Report['modules'][number]) => module.diagnostics.filter((d) => d.kind !== 'ENGINE_UNAVAILABLE');
    fill(
      this.detail,
      h('header', { class: 'detail-head' }, h('h2', null, invalid.length ? `${invalid.length} invalid module${invalid.length === 1 ? '' : 's'}` : allValidHeading(report.modules.length - pending)), pending ? h('span', { class: 'dim' }, `${pending} pending`) : null),
      engine ? h('section', { class: 'problem engine-unavailable' }, h('h3', null, 'Not built: esbuild is unavailable'), h('p', null, ...engine.modules.flatMap((specifier, index) => (index === 0 ? [select(specifier)] : [', ', select(specifier)])))) : null,
      invalid
        .filter((module) => errorsOf(module).length > 0)
        .map((module) => h('section', { class: 'problem' }, h('h3', null, select(module.specifier)), renderDiagnostics(errorsOf(module), 'error', this.details?.frames))),
      h('p', { class: 'dim small' }, 'Select a module for its outputs, last build, imports and importers (Tab to the list, then ↑ ↓).'),
    );
  }

  private drawTimeline(): void {
    if (!this.element.isConnected || this.element.hidden) return;
    const now = Date.now();
    const builds = this.details?.builds ?? [];
    // A young session fills the strip rather than sitting in its last pixels.
    const first = builds.length ? Date.parse(builds[0]!.started) : now;
    const from = Math.max(now - TIMELINE_MS, Math.min(first, now - 10_000) - 2000);
    renderTimeline(this.timeline, builds, { from, to: now });
  }
}
