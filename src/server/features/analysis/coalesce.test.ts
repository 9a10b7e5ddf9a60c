import { coalescePerKey } from './coalesce';

/** A run that finishes only when the test says so, recording when it started. */
function controlled() {
  const started: string[] = [];
  const finish: (() => void)[] = [];
  const fn = (key: string) =>
    new Promise<void>((resolve) => {
      started.push(key);
      finish.push(resolve);
    });
  return { started, finish, fn };
}

describe('coalescePerKey', () => {
  it('calls during a run share one later run, and each resolves only after a run that began after it', async () => {
    const c = controlled();
    const sync = coalescePerKey(c.fn);
    const done: string[] = [];
    const first = sync('u1').then(() => done.push('first'));
    const second = sync('u1').then(() => done.push('second'));
    const third = sync('u1').then(() => done.push('third'));
    expect(c.started).toEqual(['u1']);
    c.finish[0]!();
    await first;
    // The two waiting calls start one run between them, after the first ended.
    await vi.waitFor(() => expect(c.started).toEqual(['u1', 'u1']));
    expect(done).toEqual(['first']);
    c.finish[1]!();
    await Promise.all([second, third]);
    expect(done).toEqual(['first', 'second', 'third']);
    expect(c.started).toHaveLength(2);
  });

  it('keys do not wait for each other, and a failed run does not block the next', async () => {
    let calls = 0;
    const sync = coalescePerKey(async (key) => {
      calls += 1;
      if (key === 'bad' && calls === 1) throw new Error('boom');
    });
    const bad = sync('bad');
    const retry = sync('bad');
    await expect(bad).rejects.toThrow('boom');
    await expect(retry).resolves.toBeUndefined();
    await expect(sync('other')).resolves.toBeUndefined();
    expect(calls).toBe(3);
  });
});
