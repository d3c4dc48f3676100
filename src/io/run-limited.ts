// At most `limit` tasks in flight, started in order: `core dist`'s builds on every core, and a
// fresh machine's questions to the team cache over a few kept-alive connections.
export async function runLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}
