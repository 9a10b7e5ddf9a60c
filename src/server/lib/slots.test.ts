import { describe, expect, it } from 'vitest';
import { createSlots } from './slots';

describe('createSlots', () => {
  it('runs at most max at once, the rest in arrival order, and passes a failed one’s place on', async () => {
    const slots = createSlots(2);
    let now = 0;
    let most = 0;
    const order: number[] = [];
    const gates: Array<() => void> = [];
    const job = (i: number) =>
      slots.run(async () => {
        now += 1;
        most = Math.max(most, now);
        order.push(i);
        await new Promise<void>((resolve) => gates.push(resolve));
        now -= 1;
        if (i === 1) throw new Error('boom');
        return i;
      });
    const all = [0, 1, 2, 3, 4].map((i) => job(i).catch((e: Error) => e.message));
    for (let k = 0; k < 5; k++) {
      await new Promise((r) => setImmediate(r));
      expect(slots.stats().running).toBeLessThanOrEqual(2);
      gates.shift()?.();
    }
    expect(await Promise.all(all)).toEqual([0, 'boom', 2, 3, 4]);
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(slots.stats()).toEqual({ running: 0, waiting: 0 });
  });
});
