// Waiting for a condition by polling, never by a fixed sleep: `check` runs until it returns
// something other than undefined/false (or stops throwing), and that value is returned.
// On time-out the last failure (or `what`) is thrown, so the test says what never happened.

export interface WaitOptions {
  /** Default 15 s: builds on a busy 2-core machine can be slow. */
  timeout?: number;
  /** Default 25 ms. */
  interval?: number;
  /** What was waited for, for the error message. */
  what?: string;
}

export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, options: WaitOptions = {}): Promise<T> {
  const { timeout = 15_000, interval = 25, what = 'a condition' } = options;
  const deadline = Date.now() + timeout;
  let last: unknown = null;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
      last = null;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      if (last instanceof Error) {
        last.message = `waited ${timeout} ms for ${what}; last failure: ${last.message}`;
        throw last;
      }
      throw new Error(`waited ${timeout} ms for ${what}, in vain`);
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
