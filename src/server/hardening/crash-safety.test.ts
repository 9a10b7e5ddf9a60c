import { describe, expect, it } from 'vitest';
import { runCrashScenario } from './proc/crash-scenario';
import { recordFigure } from './support';

/**
 * Quick version: the real server process on PGlite, SIGKILLed mid-upload and
 * mid-analysis and restarted. The long suite runs 50 uploads (50 analysis jobs) and more kills.
 */
describe('crash safety (SIGKILL during uploads and analysis)', () => {
  it('acknowledged uploads survive whole, nothing half-visible, orphans swept, queue finishes', async () => {
    const f = await runCrashScenario({ uploads: 10, kills: 2, seed: 4 });
    await recordFigure('4 crash safety', 'quick: uploads / kills', `${f.uploads} / ${f.kills}`);
    expect(f.problems).toEqual([]);
    expect(f.kills).toBe(2);
    expect(f.acknowledged).toBeGreaterThanOrEqual(f.uploads - 1);
    expect(f.analysed).toBe(f.analysisJobs);
    expect(f.orphansLeft).toBe(0);
    expect(f.tempLeft).toBe(0);
    expect(f.missingBlobs).toBe(0);
  }, 600_000);
});
