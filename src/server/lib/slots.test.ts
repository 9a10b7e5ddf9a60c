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

  it("takes keys in turns: one key's queue waits its turn behind another key's single job", async () => {
    const slots = createSlots(1);
    const order: string[] = [];
    const gates: Array<() => void> = [];
    const job = (key: string, label: string) =>
      slots.run(async () => {
        order.push(label);
        await new Promise<void>((resolve) => gates.push(resolve));
      }, key);
    const all = [
      job('a', 'a1'),
      job('a', 'a2'),
      job('a', 'a3'),
      job('a', 'a4'),
      job('b', 'b1'),
      job('a', 'a5'),
      job('c', 'c1'),
    ];
    while (order.length < all.length) {
      await new Promise((r) => setImmediate(r));
      gates.shift()?.();
    }
    await Promise.all(all);
    // a1 was running; then each waiting key in turn: a, b, c, a, a, a.
    expect(order).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'a4', 'a5']);
  });
});
