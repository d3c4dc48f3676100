// The order a team start checks a list in while a worker reads ahead (src/io/remote-cache/two-ended.ts).
import { expect } from 'chai';
import { twoEnded } from '../../../src/io/remote-cache/two-ended.js';

/** A worker whose answers the test gives: each batch it was sent, answered when `answer` is called. */
function heldWorker() {
  const batches: number[][] = [];
  const answers: (() => void)[] = [];
  const readAhead = (batch: readonly number[]) => new Promise<void>((resolve) => (batches.push([...batch]), answers.push(resolve)));
  return { batches, readAhead, answerAll: () => answers.splice(0).forEach((answer) => answer()) };
}

describe('twoEnded', () => {
  it('sends two batches of 64 from the front, checks the rest here from the back, 16 at a time, then takes the batches as read', async () => {
    const items = Array.from({ length: 200 }, (_, index) => index);
    const worker = heldWorker();
    let allSent = 0;
    const checking = twoEnded(items, worker.readAhead, () => void (allSent += 1));
    expect(worker.batches.map((batch) => [batch[0], batch.length])).to.deep.equal([[0, 64], [64, 64]]);
    const checked: [number, boolean][] = [];
    const held = await checking.check((item, asRead) => {
      checked.push([item, asRead]);
      // The back has met the front: the worker answers now.
      if (item === 135) worker.answerAll();
      return true;
    });
    expect(held).to.equal(true);
    expect(allSent, 'told once the back met the front').to.be.greaterThan(0);
    const here = checked.filter(([, asRead]) => !asRead).map(([item]) => item);
    expect(here).to.deep.equal([...range(184, 200), ...range(168, 184), ...range(152, 168), ...range(136, 152), ...range(128, 136)]);
    expect(checked.filter(([, asRead]) => asRead).map(([item]) => item)).to.deep.equal(range(0, 128));
    expect(checked.length, 'each item once').to.equal(200);
  });

  it('stops at the first check that fails, and sends nothing after', async () => {
    const items = Array.from({ length: 300 }, (_, index) => index);
    const worker = heldWorker();
    const checking = twoEnded(items, worker.readAhead);
    expect(await checking.check(() => false)).to.equal(false);
    worker.answerAll();
    await new Promise((resolve) => setImmediate(resolve));
    expect(worker.batches.length, 'the two sent at first, no third').to.equal(2);
  });

  it('checks everything here, from the back, with no worker', async () => {
    const checked: boolean[] = [];
    expect(await twoEnded([1, 2, 3], undefined).check((_, asRead) => (checked.push(asRead), true))).to.equal(true);
    expect(checked).to.deep.equal([false, false, false]);
  });
});

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => from + index);
