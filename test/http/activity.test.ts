// Requests being answered, and the quiet the watcher's first walk waits for (src/http/activity.ts).
// The waits leave wide margins either side, for a busy machine.
import { expect } from 'chai';
import { createActivity } from '../../src/http/activity.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createActivity', () => {
  it('is quiet once no request has been answered for a while, counted from when it is asked', async () => {
    const activity = createActivity();
    let quiet = false;
    const subscription = activity.quiet$(300, 60_000).subscribe(() => (quiet = true));
    await wait(20);
    expect(quiet).to.equal(false);
    await wait(600);
    expect(quiet).to.equal(true);
    subscription.unsubscribe();
  });

  it('waits for the requests in progress, and the quiet after the last one', async () => {
    const activity = createActivity();
    let release!: () => void;
    const answering = activity.middleware({} as never, () => new Promise<void>((resolve) => (release = resolve)));
    let quiet = false;
    const subscription = activity.quiet$(300, 60_000).subscribe(() => (quiet = true));
    await wait(600);
    expect(quiet, 'a request is being answered').to.equal(false);
    release();
    await answering;
    await wait(20);
    expect(quiet, 'answered just now').to.equal(false);
    await wait(600);
    expect(quiet).to.equal(true);
    subscription.unsubscribe();
  });

  it('does not wait longer than it was told, whatever the requests', async () => {
    const activity = createActivity();
    void activity.middleware({} as never, () => new Promise<void>(() => {}));
    let quiet = false;
    const subscription = activity.quiet$(100, 400).subscribe(() => (quiet = true));
    await wait(20);
    expect(quiet).to.equal(false);
    await wait(800);
    expect(quiet).to.equal(true);
    subscription.unsubscribe();
  });
});
