// Builds drawn as bars on lanes (concurrent builds never share one), over a window of time;
// used live (the last minutes) and in replay (the whole session, with a cursor). A long
// session is drawn per pixel: each lane's pixel shows the worst outcome of the builds in it,
// so 30,000 builds cost no more to draw than the strip has pixels.
import { assignLanes, type BuildOutcome, type BuildSpan } from '../../store/build-history.js';
import { h, fill } from './dom.js';
import { clock, duration } from './format.js';

export interface TimelineWindow {
  from: number;
  to: number;
  /** Replay: a click on the strip moves to that time. */
  onSeek?: (time: number) => void;
}

const LANE_HEIGHT = 14;
const SEVERITY: Record<BuildOutcome, number> = { succeeded: 0, running: 1, unfinished: 2, cancelled: 3, failed: 4 };

export interface Timeline {
  /** Replay: moves the cursor to the time of the current event. */
  cursor(time: number): void;
}

/** A time window drawn `pixels` wide: where a time falls, as a percentage of the strip. */
interface Scale {
  from: number;
  to: number;
  width: number;
  pixels: number;
}

interface VisibleSpan {
  span: BuildSpan;
  lane: number;
  start: number;
  end: number;
}

export function renderTimeline(container: HTMLElement, spans: readonly BuildSpan[], window: TimelineWindow): Timeline {
  const lanes = assignLanes(spans);
  const laneCount = Math.max(1, ...lanes.map((lane) => lane + 1));
  const scale: Scale = { from: window.from, to: window.to, width: Math.max(1, window.to - window.from), pixels: Math.max(200, container.clientWidth || 1200) };
  const visible = spans.flatMap((span, index) => {
    const start = Date.parse(span.started);
    const end = span.ended ? Date.parse(span.ended) : window.to;
    return end < window.from || start > window.to ? [] : [{ span, lane: lanes[index]!, start: Math.max(start, window.from), end: Math.min(end, window.to) }];
  });
  const bars = visible.length <= scale.pixels ? visible.map((build) => buildBar(scale, build)) : pixelBars(scale, visible, laneCount);
  const track = h('div', { class: 'track' }, bars);
  track.style.height = `${laneCount * LANE_HEIGHT + 4}px`;
  const cursor = h('div', { class: 'cursor', hidden: true });
  track.appendChild(cursor);
  if (window.onSeek) {
    const seek = window.onSeek;
    track.addEventListener('click', (event) => {
      const box = track.getBoundingClientRect();
      seek(window.from + ((event.clientX - box.left) / box.width) * scale.width);
    });
  }
  fill(container, track, h('div', { class: 'axis' }, axisTicks(scale)), spans.length === 0 ? h('div', { class: 'empty' }, 'no build in this window') : null);
  return {
    cursor(time) {
      cursor.hidden = false;
      cursor.style.left = `${percent(scale, time)}%`;
    },
  };
}

const percent = (scale: Scale, time: number) => (((time - scale.from) / scale.width) * 100).toFixed(3);

function bar(scale: Scale, left: number, right: number, lane: number, outcome: BuildOutcome, title: string, build?: number): HTMLElement {
  const element = h('div', { class: `bar ${outcome}`, title, dataset: { outcome, ...(build === undefined ? {} : { build: String(build) }) } });
  element.style.left = `${percent(scale, left)}%`;
  element.style.width = `max(2px, ${(((right - left) / scale.width) * 100).toFixed(3)}%)`;
  element.style.top = `${lane * LANE_HEIGHT + 2}px`;
  return element;
}

/** A bar of its own for a build, while the builds are fewer than the strip's pixels. */
function buildBar(scale: Scale, { span, lane, start, end }: VisibleSpan): HTMLElement {
  const what = span.modules.length === 1 ? span.modules[0] : `${span.modules.length} modules`;
  const title = `#${span.build} ${what}\n${span.reason}${span.incremental ? ', incremental' : ''} · ${span.outcome}${span.cancelled ? ` (${span.cancelled})` : ''}\n${clock(span.started)} · ${duration(span.ended ? Date.parse(span.ended) - Date.parse(span.started) : null)}${span.failed.length ? `\nfailed: ${span.failed.join(', ')}` : ''}`;
  return bar(scale, start, end, lane, span.outcome, title, span.build);
}

/** More builds than pixels: each lane's pixel holds the worst outcome of its builds, and a run of equal pixels is one bar. */
function pixelBars(scale: Scale, visible: readonly VisibleSpan[], laneCount: number): HTMLElement[] {
  const cells = new Map<string, { outcome: BuildOutcome; count: number }>();
  const pixelOf = (time: number) => Math.min(scale.pixels - 1, Math.floor(((time - scale.from) / scale.width) * scale.pixels));
  for (const { span, lane, start, end } of visible) {
    for (let pixel = pixelOf(start); pixel <= pixelOf(end); pixel += 1) {
      const key = `${lane}:${pixel}`;
      const cell = cells.get(key);
      if (!cell) cells.set(key, { outcome: span.outcome, count: 1 });
      else {
        cell.count += 1;
        if (SEVERITY[span.outcome] > SEVERITY[cell.outcome]) cell.outcome = span.outcome;
      }
    }
  }
  const bars: HTMLElement[] = [];
  for (let lane = 0; lane < laneCount; lane += 1) bars.push(...laneRuns(scale, lane, cells));
  return bars;
}

function laneRuns(scale: Scale, lane: number, cells: ReadonlyMap<string, { outcome: BuildOutcome; count: number }>): HTMLElement[] {
  const bars: HTMLElement[] = [];
  let run: { first: number; last: number; outcome: BuildOutcome; count: number } | null = null;
  const flush = () => {
    if (!run) return;
    const at = (pixel: number) => scale.from + (pixel / scale.pixels) * scale.width;
    bars.push(bar(scale, at(run.first), at(run.last + 1), lane, run.outcome, `${run.count} builds, the worst ${run.outcome}\n${clock(new Date(at(run.first)).toISOString())} – ${clock(new Date(at(run.last + 1)).toISOString())}`));
    run = null;
  };
  for (let pixel = 0; pixel < scale.pixels; pixel += 1) {
    const cell = cells.get(`${lane}:${pixel}`);
    if (cell && run && run.outcome === cell.outcome && run.last === pixel - 1) {
      run.last = pixel;
      run.count += cell.count;
    } else {
      flush();
      if (cell) run = { first: pixel, last: pixel, outcome: cell.outcome, count: cell.count };
    }
  }
  flush();
  return bars;
}

function axisTicks(scale: Scale): HTMLElement[] {
  return [0, 0.25, 0.5, 0.75, 1].map((fraction) => {
    const tick = h('span', { class: 'tick' }, clock(new Date(scale.from + fraction * scale.width).toISOString()).slice(0, 8));
    tick.style.left = `${fraction * 100}%`;
    return tick;
  });
}
