/**
 * At most one run of `fn` per key at a time, and at most one more waiting: calls made while a run
 * is under way share the next run. Each caller still resolves only after a run that started after
 * its call, so it sees its own change. The smart-album rebuild reads all of a user's analysed
 * photos; a batch of photos finishing together then costs two rebuilds instead of one each.
 */
export function coalescePerKey(fn: (key: string) => Promise<void>): (key: string) => Promise<void> {
  const running = new Map<string, Promise<void>>();
  const waiting = new Map<string, Promise<void>>();
  const start = (key: string): Promise<void> => {
    const run = fn(key).finally(() => {
      if (running.get(key) === run) running.delete(key);
    });
    running.set(key, run);
    return run;
  };
  return (key) => {
    const queued = waiting.get(key);
    if (queued) return queued;
    const current = running.get(key);
    if (!current) return start(key);
    const next = current
      .catch(() => undefined)
      .then(() => {
        waiting.delete(key);
        return start(key);
      });
    waiting.set(key, next);
    return next;
  };
}
