// Marble tests of the supervisor: what an effect's failure becomes, and when the effect runs again.
import { expect } from 'chai';
import { EMPTY, Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { Fact } from '../../src/store/events.js';
import { guarded } from '../../src/effects/effect.js';
import { pushMessages$ } from '../../src/effects/push-messages.js';
import { guardCallbacks, restartDelay, supervise, type EffectFailed } from '../../src/effects/supervisor.js';

const fact: Fact = { type: 'files.changed', files: { 'a.ts': 'h' }, source: 'check' };
const failed = (failures: number, retryInMs: number, message = 'boom'): EffectFailed => ({ type: 'effect.failed', effect: 'probe', message, failures, retryInMs });

describe('supervise', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
  });

  it('turns each failure into effect.failed and restarts the effect after a doubling, bounded delay', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const effect = cold('--a--#', { a: fact }, new Error('boom'));
      const supervised = supervise('probe', () => effect, EMPTY, EMPTY, {}, { scheduler, firstDelayMs: 100, maxDelayMs: 400 });
      expectObservable(supervised, '^ 1200ms !').toBe('--a--f 99ms --a--g 199ms --a--h 399ms --a--i 399ms --a--j', {
        a: fact,
        f: failed(1, 100),
        g: failed(2, 200),
        h: failed(3, 400),
        i: failed(4, 400),
        j: failed(5, 400),
      });
      expectSubscriptions(effect.subscriptions).toBe(['^----!', '105ms ^----!', '310ms ^----!', '715ms ^----!', '1120ms ^----!']);
    });
  });

  it('counts failures in a row: an attempt that ran longer than the calm period starts a new count', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const effect = cold<Fact>('300ms #', undefined, new Error('boom'));
      const supervised = supervise('probe', () => effect, EMPTY, EMPTY, {}, { scheduler, firstDelayMs: 100, calmMs: 250 });
      expectObservable(supervised, '^ 900ms !').toBe('300ms f 399ms f', { f: failed(1, 100) });
    });
  });

  it('restarts an effect whose factory throws', () => {
    scheduler.run(({ expectObservable }) => {
      let calls = 0;
      const effect = () => {
        calls += 1;
        if (calls === 1) throw new Error('boom');
        return EMPTY;
      };
      expectObservable(supervise('probe', effect, EMPTY, EMPTY, {}, { scheduler }), '^ 500ms !').toBe('f', { f: failed(1, 100) });
    });
  });

  it('catches what a guarded timer callback of the effect throws', () => {
    scheduler.run(({ expectObservable }) => {
      const effect = () =>
        new Observable<Fact>((subscriber) => {
          const timer = scheduler.schedule(
            guarded(subscriber, () => {
              throw new Error('late');
            }),
            10,
          );
          return () => timer.unsubscribe();
        });
      expectObservable(supervise('probe', effect, EMPTY, EMPTY, {}, { scheduler }), '^ 50ms !').toBe('10ms f', { f: failed(1, 100, 'late') });
    });
  });

  it('hands failures to onFailed when the values are not facts (the push derivation), and restarts it', () => {
    const seen: EffectFailed[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      // A state whose modules throw when read stands for a defect in the derivation.
      const broken = { workspace: { get modules(): never { throw new Error('unreadable state'); } }, builds: {} };
      const state$ = cold('a', { a: broken as never });
      const supervised = supervise('push', (_event$, states$) => pushMessages$(states$), EMPTY, state$, {}, { scheduler, onFailed: (failure) => void seen.push(failure) });
      expectObservable(supervised, '^ 250ms !').toBe('');
    });
    expect(seen.map((failure) => [failure.effect, failure.message, failure.failures])).to.deep.equal([
      ['push', 'unreadable state', 1],
      ['push', 'unreadable state', 2],
    ]);
  });

  it('waits no more than its ceiling however many failures came before', () => {
    expect([1, 2, 3, 8, 100, 10_000].map((failures) => restartDelay(failures))).to.deep.equal([100, 200, 400, 10_000, 10_000, 10_000]);
  });
});

describe('guardCallbacks', () => {
  it('reports a throw as effect.failed, counted in a row per callback, and logs it by the rule of an effect failure', () => {
    const facts: EffectFailed[] = [];
    const lines: string[] = [];
    const guard = guardCallbacks((fact) => void facts.push(fact), (line) => void lines.push(line), 3);
    const boom = () => {
      throw new Error('boom');
    };
    for (let i = 0; i < 3; i += 1) expect(guard.run('timer', boom)).to.equal(undefined);
    guard.failed('listener', 'plain', 'reading a.ts');
    expect(facts.map((fact) => [fact.effect, fact.message, fact.failures, fact.retryInMs])).to.deep.equal([
      ['timer', 'boom', 1, 0],
      ['timer', 'boom', 2, 0],
      ['timer', 'boom', 3, 0],
      ['listener', 'reading a.ts: plain', 1, 0],
    ]);
    // The first of a row with its stack, the one at the bound saying where it is listed.
    expect(lines[0]).to.match(/^core: the timer callback failed: boom\nError: boom\n {4}at /);
    expect(lines[1]).to.equal('core: the timer callback failed: boom');
    expect(lines[2]).to.equal('core: the timer callback failed: boom. It failed 3 times in a row: /state lists it; please report this defect with a log (core run --record FILE)');
    expect(lines[3]).to.equal('core: the listener callback failed: reading a.ts: plain');
  });

  it('starts a new count after a run that did not throw, and answers what the callback returned', () => {
    const facts: EffectFailed[] = [];
    const guard = guardCallbacks((fact) => void facts.push(fact), () => undefined);
    guard.failed('timer', new Error('once'));
    expect(guard.run('timer', () => 7)).to.equal(7);
    guard.failed('timer', new Error('again'));
    expect(facts.map((fact) => fact.failures)).to.deep.equal([1, 1]);
  });
});

describe('supervise, its lines', () => {
  it('logs the first failure with its stack, and at the bound where it is listed', () => {
    const lines: string[] = [];
    const scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    scheduler.run(({ cold, expectObservable }) => {
      const effect = cold<Fact>('#', undefined, new Error('boom'));
      const supervised = supervise('probe', () => effect, EMPTY, EMPTY, {}, { scheduler, firstDelayMs: 100, maxDelayMs: 100, bound: 2, logger: (line) => void lines.push(line) });
      expectObservable(supervised, '^ 250ms !').toBe('f 99ms g 99ms h', { f: failed(1, 100), g: failed(2, 100), h: failed(3, 100) });
    });
    expect(lines[0]).to.match(/^core: the probe effect failed: boom; it restarts in 100 ms\nError: boom\n/);
    expect(lines.slice(1)).to.deep.equal([
      'core: the probe effect failed: boom; it restarts in 100 ms. It failed 2 times in a row: /state lists it; please report this defect with a log (core run --record FILE)',
      'core: the probe effect failed: boom; it restarts in 100 ms',
    ]);
  });
});
