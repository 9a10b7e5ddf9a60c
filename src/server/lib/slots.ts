/**
 * At most `max` of some work at once in this process, the rest waiting in arrival order. For work
 * that runs on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which
 * password hashing, file system calls and blob reads share: capped below the pool's size, image
 * decodes leave threads for them whatever the uploads in flight.
 */
export function createSlots(max: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (running < max) running += 1;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await work();
      } finally {
        // The place passes straight to the next in line, so `running` never dips between them.
        const next = waiting.shift();
        if (next) next();
        else running -= 1;
      }
    },
    stats: () => ({ running, waiting: waiting.length }),
  };
}
export type Slots = ReturnType<typeof createSlots>;
