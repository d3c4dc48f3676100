// Builds drawn as bars on lanes (concurrent builds never share one), over a window of time;
// used live (the last minutes) and in replay (the whole session, with a cursor).
import { assignLanes, type BuildSpan } from '../../store/build-history.js';
import { h, fill } from './dom.js';
import { clock, duration } from './format.js';

export interface TimelineWindow {
  from: number;
  to: number;
  /** Replay: the time of the current event. */
  cursor?: number;
  /** Replay: a click on the strip moves to that time. */
  onSeek?: (time: number) => void;
}

const LANE_HEIGHT = 14;

export function renderTimeline(container: HTMLElement, spans: readonly BuildSpan[], window: TimelineWindow): void {
  const lanes = assignLanes(spans);
  const laneCount = Math.max(1, ...lanes.map((lane) => lane + 1));
  const width = Math.max(1, window.to - window.from);
  const at = (time: number) => `${(((time - window.from) / width) * 100).toFixed(3)}%`;
  const bars = spans.flatMap((span, index) => {
    const start = Date.parse(span.started);
    const end = span.ended ? Date.parse(span.ended) : window.to;
    if (end < window.from || start > window.to) return [];
    const what = span.modules.length === 1 ? span.modules[0] : `${span.modules.length} modules`;
    const bar = h('div', {
      class: `bar ${span.outcome}`,
      title: `#${span.build} ${what}\n${span.reason}${span.incremental ? ', incremental' : ''} · ${span.outcome}${span.cancelled ? ` (${span.cancelled})` : ''}\n${clock(span.started)} · ${duration(span.ended ? end - start : null)}${span.failed.length ? `\nfailed: ${span.failed.join(', ')}` : ''}`,
      dataset: { build: String(span.build), outcome: span.outcome },
    });
    bar.style.left = at(Math.max(start, window.from));
    bar.style.width = `max(2px, ${(((Math.min(end, window.to) - Math.max(start, window.from)) / width) * 100).toFixed(3)}%)`;
    bar.style.top = `${lanes[index]! * LANE_HEIGHT + 2}px`;
    return [bar];
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((fraction) => {
    const tick = h('span', { class: 'tick' }, clock(new Date(window.from + fraction * width).toISOString()).slice(0, 8));
    tick.style.left = `${fraction * 100}%`;
    return tick;
  });
  const track = h('div', { class: 'track' }, bars);
  track.style.height = `${laneCount * LANE_HEIGHT + 4}px`;
  if (window.cursor !== undefined) {
    const cursor = h('div', { class: 'cursor' });
    cursor.style.left = at(window.cursor);
    track.appendChild(cursor);
  }
  if (window.onSeek) {
    const seek = window.onSeek;
    track.addEventListener('click', (event) => {
      const box = track.getBoundingClientRect();
      seek(window.from + ((event.clientX - box.left) / box.width) * width);
    });
  }
  fill(container, track, h('div', { class: 'axis' }, ticks), spans.length === 0 ? h('div', { class: 'empty' }, 'no build in this window') : null);
}
