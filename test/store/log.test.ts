// The in-memory event log of GET /log, and NDJSON lines.
import { expect } from 'chai';
import { Subject } from 'rxjs';
import type { CoreEvent } from '../../src/store/events.js';
import { createEventLog, toNdjsonLine } from '../../src/store/log.js';
import { TIME } from '../helpers/models.js';

const event = (seq: number): CoreEvent => ({ type: 'service.stopped', seq, time: TIME });
const seqs = (events: CoreEvent[]) => events.map((e) => e.seq);

describe('createEventLog', () => {
  it('keeps the events it saw, oldest first', () => {
    const events$ = new Subject<CoreEvent>();
    const log = createEventLog(events$);
    for (let seq = 1; seq <= 3; seq += 1) events$.next(event(seq));
    expect(seqs(log.events())).to.deep.equal([1, 2, 3]);
  });

  it('answers the events after `since`', () => {
    const events$ = new Subject<CoreEvent>();
    const log = createEventLog(events$);
    for (let seq = 1; seq <= 5; seq += 1) events$.next(event(seq));
    expect(seqs(log.events(3))).to.deep.equal([4, 5]);
    expect(seqs(log.events(0))).to.deep.equal([1, 2, 3, 4, 5]);
    expect(log.events(5)).to.deep.equal([]);
  });

  it('keeps no more than its window: the newest events', () => {
    const events$ = new Subject<CoreEvent>();
    const log = createEventLog(events$, 10);
    for (let seq = 1; seq <= 100; seq += 1) {
      events$.next(event(seq));
      const kept = seqs(log.events());
      expect(kept.length).to.be.at.most(10);
      expect(kept[kept.length - 1]).to.equal(seq);
      expect(kept).to.deep.equal(Array.from({ length: kept.length }, (_, index) => seq - kept.length + 1 + index));
    }
    expect(seqs(log.events())).to.deep.equal([91, 92, 93, 94, 95, 96, 97, 98, 99, 100]);
    expect(seqs(log.events(95))).to.deep.equal([96, 97, 98, 99, 100]);
  });

  it('keeps no more than its bytes of JSON, measured after the turn: the newest events, at least the last', async () => {
    const events$ = new Subject<CoreEvent>();
    const big = (seq: number): CoreEvent => ({ type: 'effect.failed', effect: 'x'.repeat(1000), message: '', failures: 1, retryInMs: 0, seq, time: TIME });
    const size = JSON.stringify(big(10)).length;
    const log = createEventLog(events$, 100, 5 * size);
    for (let seq = 1; seq <= 20; seq += 1) events$.next(big(seq));
    await new Promise((resolve) => setImmediate(resolve));
    expect(seqs(log.events())).to.deep.equal([16, 17, 18, 19, 20]);
    const huge = createEventLog(events$, 100, 10);
    events$.next(big(21));
    await new Promise((resolve) => setImmediate(resolve));
    expect(seqs(huge.events())).to.deep.equal([21]);
    expect(seqs(log.events())).to.deep.equal([17, 18, 19, 20, 21]);
    log.close();
    huge.close();
  });

  it('answers a copy that later events do not change', () => {
    const events$ = new Subject<CoreEvent>();
    const log = createEventLog(events$, 3);
    events$.next(event(1));
    const answered = log.events();
    for (let seq = 2; seq <= 10; seq += 1) events$.next(event(seq));
    expect(seqs(answered)).to.deep.equal([1]);
  });

  it('stops listening on close', () => {
    const events$ = new Subject<CoreEvent>();
    const log = createEventLog(events$);
    events$.next(event(1));
    log.close();
    events$.next(event(2));
    expect(seqs(log.events())).to.deep.equal([1]);
  });
});

describe('toNdjsonLine', () => {
  it('writes one JSON line ending in a newline, and reads back as the event', () => {
    const line = toNdjsonLine({ type: 'files.changed', files: { 'a\nb.ts': 'x' }, source: 'watcher', seq: 1, time: TIME });
    expect(line.endsWith('\n')).to.equal(true);
    expect(line.slice(0, -1)).to.not.contain('\n');
    expect(JSON.parse(line)).to.deep.equal({ type: 'files.changed', files: { 'a\nb.ts': 'x' }, source: 'watcher', seq: 1, time: TIME });
  });
});
