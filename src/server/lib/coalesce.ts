/**
 * `run` at most once at a time in this process: a call while it runs asks for one more run after
 * it (however many calls came meanwhile) and shares that outcome. For idempotent maintenance whose
 * concurrent copies only wait on each other, each holding a connection, such as ANALYZE.
 */
export function coalesced(run: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  async function loop() {
    do {
      again = false;
      await run();
    } while (again);
  }
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = loop().finally(() => {
      running = null;
    });
    return running;
  };
}
