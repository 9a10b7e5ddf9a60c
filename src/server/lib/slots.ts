/**
 * At most `max` of some work at once in this process, the rest waiting their turn: in turns per
 * key (a user), round the keys in the order they first waited, so one key's queue never holds
 * another key's work back by more than a round. For work that runs on libuv's thread pool (4
 * threads unless UV_THREADPOOL_SIZE says otherwise), which password hashing, file system calls and
 * blob reads share: capped below the pool's size, image decodes leave threads for them (a decode's
 * last moments encode three renditions at once, so two of them can still briefly fill the pool).
 */
export function createSlots(max: number) {
  let running = 0;
  let waiting = 0;
  /** Each key's waiting work in arrival order; Map order is the round's order. */
  const queues = new Map<string, Array<() => void>>();

  function next(): (() => void) | undefined {
    for (const [key, queue] of queues) {
      const start = queue.shift();
      queues.delete(key);
      // To the back of the round, if it has more.
      if (queue.length) queues.set(key, queue);
      if (start) return start;
    }
    return undefined;
  }

  return {
    async run<T>(work: () => Promise<T>, key = ''): Promise<T> {
      if (running < max) running += 1;
      else {
        waiting += 1;
        await new Promise<void>((resolve) => {
          const queue = queues.get(key);
          if (queue) queue.push(resolve);
          else queues.set(key, [resolve]);
        });
        waiting -= 1;
      }
      try {
        return await work();
      } finally {
        // The place passes straight to the next in turn, so `running` never dips between them.
        const start = next();
        if (start) start();
        else running -= 1;
      }
    },
    stats: () => ({ running, waiting }),
  };
}
