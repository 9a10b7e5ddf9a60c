import { fewAtOnce } from './few-at-once';

/** Work whose every call waits until the test ends it, in the order they were begun. */
function heldWork() {
  const begun: Array<{ item: number; end: (ok: boolean | Error) => void }> = [];
  const work = (item: number) =>
    new Promise<boolean>((resolve, reject) => {
      begun.push({ item, end: (ok) => (ok instanceof Error ? reject(ok) : resolve(ok)) });
    });
  return { begun, work };
}
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('fewAtOnce', () => {
  it('runs at most the bound at once, in order, and begins the next as one ends', async () => {
    const { begun, work } = heldWork();
    const all = fewAtOnce([1, 2, 3, 4, 5], 2, work);
    await turn();
    expect(begun.map((b) => b.item)).toEqual([1, 2]);
    begun[1]!.end(true);
    await turn();
    expect(begun.map((b) => b.item)).toEqual([1, 2, 3]);
    // Never more than two on their way: each end begins one more.
    for (let ended = 1; ended < 5; ended++) {
      expect(begun.length - ended).toBeLessThanOrEqual(2);
      begun[ended === 1 ? 0 : ended]!.end(true);
      await turn();
    }
    expect(begun.map((b) => b.item)).toEqual([1, 2, 3, 4, 5]);
    await expect(all).resolves.toBe(5);
  });

  it('begins none after one answers false, and settles when those begun have', async () => {
    const { begun, work } = heldWork();
    let settled = false;
    const all = fewAtOnce([1, 2, 3, 4, 5, 6], 3, work).then((n) => ((settled = true), n));
    await turn();
    begun[0]!.end(false);
    await turn();
    expect(begun).toHaveLength(3);
    expect(settled).toBe(false);
    begun[1]!.end(true);
    begun[2]!.end(true);
    await expect(all).resolves.toBe(3);
  });

  it('throws the first failure only once every begun one has settled (their locks are still held)', async () => {
    const { begun, work } = heldWork();
    let outcome: unknown;
    const all = fewAtOnce([1, 2, 3, 4], 2, work).catch((err: unknown) => (outcome = err));
    await turn();
    begun[0]!.end(new Error('first'));
    await turn();
    expect(outcome).toBeUndefined();
    expect(begun).toHaveLength(2);
    begun[1]!.end(new Error('second'));
    await all;
    expect((outcome as Error).message).toBe('first');
  });

  it('does nothing for no items', async () => {
    await expect(fewAtOnce([], 8, () => Promise.resolve(true))).resolves.toBe(0);
  });
});
