import { describe, expect, it } from 'vitest';
import { coalesced } from './coalesce';

function gatedRun() {
  const gates: Array<() => void> = [];
  let active = 0;
  let mostAtOnce = 0;
  let runs = 0;
  const run = () =>
    new Promise<void>((resolve) => {
      runs++;
      active++;
      mostAtOnce = Math.max(mostAtOnce, active);
      gates.push(() => {
        active--;
        resolve();
      });
    });
  return { run, gates, stats: () => ({ runs, mostAtOnce }) };
}

describe('coalesced', () => {
  it('runs one at a time, and calls during a run make exactly one more run after it', async () => {
    const g = gatedRun();
    const renew = coalesced(g.run);
    const first = renew();
    const during = [renew(), renew(), renew()];
    expect(g.stats()).toEqual({ runs: 1, mostAtOnce: 1 });
    g.gates.shift()!();
    await Promise.resolve();
    await new Promise((r) => setImmediate(r));
    expect(g.stats()).toEqual({ runs: 2, mostAtOnce: 1 });
    g.gates.shift()!();
    await Promise.all([first, ...during]);
    expect(g.stats()).toEqual({ runs: 2, mostAtOnce: 1 });
    // Idle again: the next call runs at once.
    const next = renew();
    expect(g.stats().runs).toBe(3);
    g.gates.shift()!();
    await next;
  });

  it('a failed run ends the round with its error, and the next call starts afresh', async () => {
    let fail = true;
    const renew = coalesced(async () => {
      if (fail) throw new Error('lost');
    });
    await expect(renew()).rejects.toThrow('lost');
    fail = false;
    await expect(renew()).resolves.toBeUndefined();
  });
});
