// Replay in the browser: a recorded log (a `--record` file, or the live `/log`) folded by the
// service's own reducer; move along it event by event, change by change or by time, and see
// the state at that point and the event behind each status change (what `--trace` prints).
import { selectDetails } from '../details.js';
import { describeRestored, describeRemoteRestored, type CoreEvent } from '../../store/events.js';
import type { TraceChange } from '../../store/replay.js';
import { selectReport } from '../../store/selectors.js';
import { fill, h } from './dom.js';
import { clock, place } from './format.js';
import { ModuleTable, renderModuleDetail } from './module-view.js';
import { ReplayLog } from './replay-log.js';
import { renderTimeline, type Timeline } from './timeline.js';
import { VirtualList } from './virtual-list.js';

const ROW = 20;

export class ReplayView {
  readonly element: HTMLElement;
  private log: ReplayLog | null = null;
  private index = -1;
  private byTime = false;
  private strip: Timeline | null = null;
  private readonly status = h('span', { class: 'load-status', role: 'status' }, 'Open a log recorded with core run --record, or load the live /log.');
  private readonly slider = h('input', { type: 'range', min: '0', max: '0', value: '0', class: 'slider', 'aria-label': 'Position in the log', disabled: true, oninput: () => this.fromSlider() });
  private readonly position = h('span', { class: 'position' }, '–');
  private readonly seqInput = h('input', { type: 'number', min: '0', class: 'seq-input', placeholder: 'seq', 'aria-label': 'Go to event seq', onchange: () => this.goToSeq() });
  private readonly timeline = h('div', { class: 'timeline' });
  private readonly eventDetail = h('section', { class: 'event-detail' });
  private readonly moduleDetail = h('aside', { class: 'detail', 'aria-label': 'Module at this point' });
  private readonly report = h('pre', { class: 'report-json' });
  private readonly table: ModuleTable;
  private readonly list: VirtualList;

  constructor() {
    this.table = new ModuleTable(() => this.showModule());
    this.list = new VirtualList(ROW, (index) => this.eventRow(index), 'Events', (event) => this.listKey(event));
    const file = h('input', { type: 'file', accept: '.ndjson,.jsonl,.log,.txt,application/x-ndjson', class: 'file', 'aria-label': 'Open a recorded log', onchange: () => void this.openFile(file) });
    const mode = h(
      'select',
      { 'aria-label': 'Move by', onchange: () => ((this.byTime = mode.value === 'time'), this.syncSlider()) },
      h('option', { value: 'event' }, 'by event'),
      h('option', { value: 'time' }, 'by time'),
    );
    const button = (label: string, title: string, action: () => void) => h('button', { type: 'button', title, 'aria-label': title, onclick: action }, label);
    this.element = h(
      'div',
      { class: 'view replay', hidden: true, onkeydown: (event: KeyboardEvent) => this.key(event) },
      h('div', { class: 'subbar' }, h('label', { class: 'button' }, 'Open log…', file), h('button', { type: 'button', onclick: () => void this.openLive() }, 'Load live /log'), this.status),
      h(
        'div',
        { class: 'controls' },
        button('|◀', 'First event (Home)', () => this.seek(0)),
        button('◀◀', 'Previous status change (PageUp)', () => this.seek(this.log?.nextChange(this.index, -1) ?? 0)),
        button('◀', 'Previous event (←)', () => this.seek(this.index - 1)),
        this.slider,
        button('▶', 'Next event (→)', () => this.seek(this.index + 1)),
        button('▶▶', 'Next status change (PageDown)', () => this.seek(this.log?.nextChange(this.index, 1) ?? 0)),
        button('▶|', 'Last event (End)', () => this.seek(Infinity)),
        mode,
        this.seqInput,
        this.position,
      ),
      h('section', { class: 'timeline-panel' }, this.timeline),
      h(
        'div',
        { class: 'replay-split' },
        h('section', { class: 'events' }, h('div', { class: 'row head event-row' }, h('span', null, 'seq'), h('span', null, 'time'), h('span', null, 'event'), h('span', null, '')), this.list.element),
        h('div', { class: 'replay-state' }, this.eventDetail, h('div', { class: 'split' }, this.table.element, this.moduleDetail)),
      ),
      h('details', { class: 'report' }, h('summary', null, 'The /state report at this point (what core replay --until prints)'), this.report),
    );
  }

  private async openFile(input: HTMLInputElement): Promise<void> {
    const file = input.files?.[0];
    if (file) await this.load(await file.text(), file.name);
  }

  private async openLive(): Promise<void> {
    this.status.textContent = 'fetching /log…';
    const response = await fetch('/log', { headers: { accept: 'application/x-ndjson' } });
    await this.load(await response.text(), '/log');
  }

  async load(text: string, name: string): Promise<void> {
    this.status.textContent = `reading ${name}…`;
    try {
      this.log = await ReplayLog.load(text, name, (done, total) => (this.status.textContent = `folding ${name}: ${done.toLocaleString()} / ${total.toLocaleString()} events`));
    } catch (error) {
      this.log = null;
      this.status.textContent = (error as Error).message;
      this.status.className = 'load-status error';
      return;
    }
    const log = this.log;
    this.status.className = 'load-status';
    this.status.textContent = `${name}: ${log.events.length.toLocaleString()} events, ${log.changes.size.toLocaleString()} status changes, ${log.spans.length.toLocaleString()} builds${log.warnings.length ? ` · ${log.warnings.join('; ')}` : ''}`;
    this.slider.disabled = false;
    this.list.setCount(log.events.length);
    this.index = -1;
    // The strip shows the whole session: drawn once, only its cursor moves.
    const start = Date.parse(log.events[0]!.time);
    const end = Math.max(start + 1, Date.parse(log.events[log.events.length - 1]!.time));
    this.strip = renderTimeline(this.timeline, log.spans, { from: start, to: end, onSeek: (time) => this.seek(log.indexAtTime(time)) });
    this.seek(log.events.length - 1);
  }

  private syncSlider(): void {
    const log = this.log;
    if (!log || log.events.length === 0) return;
    if (this.byTime) {
      const start = Date.parse(log.events[0]!.time);
      const span = Date.parse(log.events[log.events.length - 1]!.time) - start;
      const step = Math.max(1, Math.round(span / 1000));
      // A range input's highest value is the highest multiple of its step within max: a span
      // that is not one would leave the last event beyond `End` (README "The build dashboard").
      this.slider.max = String(Math.ceil(span / step) * step);
      this.slider.step = String(step);
      this.slider.value = String(Date.parse(log.events[this.index]!.time) - start);
    } else {
      this.slider.max = String(log.events.length - 1);
      this.slider.step = '1';
      this.slider.value = String(this.index);
    }
  }

  private fromSlider(): void {
    const log = this.log;
    if (!log) return;
    const value = Number(this.slider.value);
    // By time: the events up to that moment; the slider's start is the first event itself.
    if (this.byTime) this.seek(value <= 0 ? 0 : log.indexAtTime(Date.parse(log.events[0]!.time) + value), false);
    else this.seek(value, false);
  }

  private goToSeq(): void {
    const log = this.log;
    const seq = Number(this.seqInput.value);
    if (!log || !Number.isFinite(seq)) return;
    // As `--until SEQ`: the last event whose seq is at most SEQ.
    let index = -1;
    for (let i = 0; i < log.events.length && log.events[i]!.seq <= seq; i += 1) index = i;
    this.seek(Math.max(0, index));
  }

  seek(to: number, moveSlider = true): void {
    const log = this.log;
    if (!log || log.events.length === 0) return;
    this.index = Math.max(0, Math.min(log.events.length - 1, to));
    const event = log.events[this.index]!;
    const state = log.stateAt(this.index);
    const report = selectReport(state);
    const history = log.historyAt(this.index);
    this.table.update(report, selectDetails(state, history, null));
    this.report.textContent = JSON.stringify(report, null, 2);
    this.element.dataset.seq = String(event.seq);
    this.position.textContent = `seq ${event.seq} · ${this.index + 1} / ${log.events.length} · ${clock(event.time)}`;
    if (moveSlider) this.syncSlider();
    this.list.show(this.index);
    const changes = log.changes.get(this.index) ?? [];
    fill(
      this.eventDetail,
      h('h3', null, h('code', null, `seq ${event.seq}`), ` ${event.type} `, h('span', { class: 'dim' }, describe(event))),
      changes.length ? h('ul', { class: 'changes' }, changes.map(changeRow)) : h('p', { class: 'dim small' }, 'no module changed its status or diagnostics at this event'),
    );
    this.strip?.cursor(Date.parse(event.time));
    this.showModule();
  }

  private showModule(): void {
    const log = this.log;
    const specifier = this.table.selected;
    const found = specifier ? this.table.module(specifier) : null;
    let cause: Node | null = null;
    if (log && specifier && found) {
      const at = log.lastChange(specifier, this.index);
      if (at !== null) {
        const event = log.events[at]!;
        cause = h('p', { class: 'cause' }, `${found.module.status} since `, h('button', { type: 'button', class: 'link', onclick: () => this.seek(at) }, `seq ${event.seq} ${event.type}`), h('span', { class: 'dim' }, ` ${clock(event.time)} ${describe(event)}`));
      }
    }
    renderModuleDetail(this.moduleDetail, found?.module ?? null, found?.details, this.table, cause);
  }

  private eventRow(index: number): HTMLElement {
    const event = this.log!.events[index]!;
    const changes = this.log!.changes.get(index);
    return h(
      'div',
      { class: `row event-row${changes ? ' changed' : ''} ${event.type.replace('.', '-')}`, role: 'option', onclick: () => this.seek(index) },
      h('span', { class: 'num' }, event.seq),
      h('span', { class: 'dim' }, clock(event.time)),
      h('span', { class: 'type' }, event.type),
      h('span', { class: 'summary' }, changes ? changes.map((c) => `${c.specifier} → ${c.to?.status ?? 'removed'}`).join(', ') : describe(event)),
    );
  }

  private listKey(event: KeyboardEvent): void {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      event.stopPropagation();
      this.seek(this.index + (event.key === 'ArrowDown' ? 1 : -1));
    }
  }

  private key(event: KeyboardEvent): void {
    const target = event.target as HTMLElement;
    // The slider and the fields keep their own keys, but for PageUp/PageDown: status changes everywhere.
    if (target instanceof HTMLInputElement && target.type !== 'file' && !(target.type === 'range' && event.key.startsWith('Page'))) return;
    if (target.closest('.modules')) return;
    const moves: Record<string, () => number> = {
      ArrowRight: () => this.index + 1,
      ArrowLeft: () => this.index - 1,
      PageDown: () => this.log?.nextChange(this.index, 1) ?? 0,
      PageUp: () => this.log?.nextChange(this.index, -1) ?? 0,
      Home: () => 0,
      End: () => Infinity,
    };
    const move = moves[event.key];
    if (!move || !this.log) return;
    event.preventDefault();
    this.seek(move());
  }
}

function changeRow(change: TraceChange): HTMLElement {
  const to = change.to?.status ?? 'removed';
  return h(
    'li',
    null,
    h('code', null, change.specifier),
    ' ',
    h('span', { class: `status ${change.from?.status ?? 'new'}` }, change.from?.status ?? 'new'),
    ' → ',
    h('span', { class: `status ${to}` }, to),
    (change.to?.diagnostics ?? []).map((d) => h('div', { class: 'small' }, h('span', { class: 'kind error' }, d.kind), ' ', d.file ? h('code', null, place(d)) : null, ` ${d.message}`)),
  );
}

/** One line on what an event says (the columns `--trace` prints, and a little more). */
function describe(event: CoreEvent): string {
  switch (event.type) {
    case 'service.started':
      return `core ${event.service} in ${event.root}`;
    case 'workspace.read':
      return `${event.workspace.packages.length} packages, ${event.workspace.modules.length} modules${event.restored ? ' (from the build cache)' : ''}`;
    case 'workspace.unchanged':
      return 'manifests unchanged';
    case 'files.changed': {
      const files = Object.keys(event.files);
      return `${event.source}: ${files.slice(0, 3).join(', ')}${files.length > 3 ? ` +${files.length - 3}` : ''}`;
    }
    case 'output.requested':
      return `${event.module} (${event.variant})`;
    case 'build.started':
      return `#${event.build} ${event.reason}: ${event.modules.length === 1 ? event.modules[0]!.module : `${event.modules.length} modules`}`;
    case 'build.succeeded':
      return `#${event.build} ${event.module}`;
    case 'build.failed':
      return `#${event.build} ${event.module}: ${event.errors.length} error(s)`;
    case 'build.cancelled':
      return `#${event.build}: ${event.reason}`;
    case 'copies.found':
      return `shared files copied: ${event.copies.map((copy) => `${copy.module} (${copy.file}${copy.unshared ? ', shared no more' : ''})`).join(', ')}`;
    case 'effect.failed':
      return `${event.effect}: ${event.message} (failure ${event.failures}, restarts in ${event.retryInMs} ms)`;
    case 'cache.restored':
      return describeRestored(event);
    case 'cache.remote.restored':
      return describeRemoteRestored({ ...event, hits: event.builds.length });
    case 'cache.remote.model':
      return event.adopted ? `workspace model from the team cache (${event.sources} sources held)` : `workspace model not taken from the team cache: ${event.miss ?? 'unknown'}`;
    case 'service.stopped':
      return '';
    case 'watch.unwatched': {
      const paths = Object.entries(event.paths);
      return paths.length === 0 ? 'every path watched' : `${paths.length} unwatched: ${paths.slice(0, 3).map(([path, code]) => `${path} (${code})`).join(', ')}`;
    }
  }
}
