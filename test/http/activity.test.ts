// Requests being answered (src/http/activity.ts): the count the watcher's first walk waits on.
import { expect } from 'chai';
import { createActivity } from '../../src/http/activity.js';

describe('createActivity', () => {
  it('counts each request while its handlers run, also one that fails', async () => {
    const activity = createActivity();
    const counts: number[] = [];
    const subscription = activity.inProgress$.subscribe((count) => counts.push(count));
    let release!: () => void;
    const first = activity.middleware({} as never, () => new Promise<void>((resolve) => (release = resolve)));
    const second = activity.middleware({} as never, () => Promise.reject(new Error('a failing handler')));
    await second.catch(() => {});
    expect(counts, 'the failed one is no longer counted').to.deep.equal([0, 1, 2, 1]);
    release();
    await first;
    expect(counts).to.deep.equal([0, 1, 2, 1, 0]);
    subscription.unsubscribe();
  });
});
