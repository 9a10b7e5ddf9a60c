/**
 * Total Blocking Time read from the page's own CPU time, beside Lighthouse's.
 *
 * Lighthouse's simulated TBT takes each main-thread task's wall-clock duration, times 4 (the mobile
 * CPU slowdown), minus 50 ms. On a shared 2-core machine a task's wall clock includes the time the
 * renderer's thread was runnable but not running (other processes had the cores), and that wait is
 * multiplied by 4 too: measured on this machine at load 7-13, the tasks above 12.5 ms took 5-28x
 * their thread time. The trace records each task's thread time (`tdur`, CPU time of that thread),
 * so the same formula over `tdur` gives what the page itself costs, whatever the neighbours do:
 * the figure to compare builds with when the machine is not quiet. Not Lighthouse's number (no
 * Lantern graph, no TTI cut-off): every top-level task of the page's main thread that starts after
 * its observed first contentful paint counts.
 */

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { frame?: string; data?: { frame?: string } };
}

export interface ThreadTbt {
  /** sum of max(0, 4 x thread time - 50 ms) over the tasks after FCP */
  tbtCpu: number;
  /** the same over wall-clock durations (about what Lantern sees) */
  tbtWall: number;
  /** tasks after FCP whose wall time x 4 passes 50 ms: their wall and thread time, ms */
  longWall: number;
  longCpu: number;
  /** the page's main thread, all tasks of the trace: wall and thread time, ms */
  allWall: number;
  allCpu: number;
  /**
   * the main thread's tasks before the observed first contentful paint (the document's commit, its
   * parse with the inline stylesheet and scripts, the first style, layout and paint): thread time, ms.
   * Lantern counts these in its TBT (its FCP comes from a smaller graph), the formula above does not.
   */
  prePaintCpu: number;
}

const SLOWDOWN = 4;
const BLOCKING_MS = 50;

/** `fcpTs`: the observed first contentful paint in trace microseconds (Lighthouse's metrics audit). */
export function threadTbt(events: readonly TraceEvent[], fcpTs: number): ThreadTbt | undefined {
  // The page's main thread is the one that emitted its first contentful paint.
  const fcp = events
    .filter((e) => e.name === 'firstContentfulPaint')
    .sort((a, b) => Math.abs(a.ts - fcpTs) - Math.abs(b.ts - fcpTs))[0];
  if (!fcp) return undefined;
  const out: ThreadTbt = { tbtCpu: 0, tbtWall: 0, longWall: 0, longCpu: 0, allWall: 0, allCpu: 0, prePaintCpu: 0 };
  const tasks = events
    .filter((e) => e.name === 'RunTask' && e.ph === 'X' && e.pid === fcp.pid && e.tid === fcp.tid)
    .sort((a, b) => a.ts - b.ts);
  let openUntil = -Infinity;
  for (const e of tasks) {
    // Only top-level tasks: one run inside another's nested loop is already in its parent's time.
    if (e.ts < openUntil) continue;
    openUntil = e.ts + (e.dur ?? 0);
    const wall = (e.dur ?? 0) / 1000;
    const cpu = (e.tdur ?? e.dur ?? 0) / 1000;
    out.allWall += wall;
    out.allCpu += cpu;
    if (e.ts < fcpTs) {
      out.prePaintCpu += cpu;
      continue;
    }
    out.tbtWall += Math.max(0, SLOWDOWN * wall - BLOCKING_MS);
    out.tbtCpu += Math.max(0, SLOWDOWN * cpu - BLOCKING_MS);
    if (SLOWDOWN * wall > BLOCKING_MS) {
      out.longWall += wall;
      out.longCpu += cpu;
    }
  }
  return out;
}
