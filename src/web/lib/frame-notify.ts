import { notifyManager } from '@tanstack/react-query';

/**
 * TanStack Query hands React each query's notifications in a task of their own (`setTimeout(0)`
 * per batch), and a store update is always a synchronous render: on a first load, where several
 * answers resolve a few tasks apart, that is one render and commit of the screen per answer, and
 * each one interrupts the boot's time-sliced render. Here every batch scheduled before the next
 * frame runs together in one task, so answers landing within a frame cost one render.
 *
 * The frame is the browser's next animation frame; a hidden tab gets none, so a timer flushes
 * after `fallbackMs` when no frame came (updates still arrive, as the default does).
 */
export function frameScheduler(
  raf: (cb: () => void) => number = (cb) => requestAnimationFrame(cb),
  cancelRaf: (id: number) => void = (id) => cancelAnimationFrame(id),
  fallbackMs = 100,
): (cb: () => void) => void {
  let pending: (() => void)[] = [];
  let frame = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    cancelRaf(frame);
    clearTimeout(timer);
    timer = undefined;
    const run = pending;
    pending = [];
    // In one task React batches every store update into one render (flushed after the task's
    // code). A failing listener must not stop the others, as it did not in a task of its own.
    for (const cb of run) {
      try {
        cb();
      } catch (err) {
        setTimeout(() => {
          throw err;
        });
      }
    }
  };
  return (cb) => {
    pending.push(cb);
    if (pending.length > 1) return;
    frame = raf(flush);
    timer = setTimeout(flush, fallbackMs);
  };
}

/** Installs the scheduler for the app (main.tsx); tests keep the library's default. */
export function coalesceQueryNotifications() {
  notifyManager.setScheduler(frameScheduler());
}
