/**
 * Runs `work` over `items` in their order, at most `atOnce` at a time. Once one answers false (or
 * throws), none more is begun. Settles only once every begun one has: a caller holding locks
 * for the work (blob keys inside a transaction) must not let them go while a store call it began
 * is still on its way, so a failure is thrown (the first) only then. Answers how many were begun.
 */
export async function fewAtOnce<T>(
  items: readonly T[],
  atOnce: number,
  work: (item: T) => Promise<boolean>,
): Promise<number> {
  let next = 0;
  let stopped = false;
  let failure: { err: unknown } | undefined;
  const inTurn = async () => {
    while (!stopped && next < items.length) {
      const item = items[next++]!;
      try {
        if (!(await work(item))) stopped = true;
      } catch (err) {
        stopped = true;
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(0, Math.min(atOnce, items.length)) }, inTurn));
  if (failure) throw failure.err;
  return next;
}
