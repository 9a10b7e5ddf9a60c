import { createTestDatabase, testDbKind, type TestDatabase } from '../test/harness';
import { LockWaitTimeout, openDatabase, type Database } from './client';

/**
 * `Database.serialise`: runs of one name one at a time, in a process and, on PostgreSQL, across
 * processes (a second pool on the same database); a bounded wait. Checkouts run behind it
 * (payments.service.ts).
 */
describe(`Database.serialise (${testDbKind})`, () => {
  let db: TestDatabase;
  /** Another process's view of the same database (the embedded one is one process: itself). */
  let other: Database;
  beforeAll(async () => {
    db = await createTestDatabase();
    other = testDbKind === 'postgres' ? await openDatabase({ databaseUrl: db.url!, pgliteDir: '' }) : db;
  });
  afterAll(async () => {
    if (other !== db) await other.close();
    await db.destroy();
  });

  /** A run of `name` that holds it until `release()`; `holds` settles once it runs. */
  function hold(on: Database, name: string) {
    let release!: () => void;
    let running!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holds = new Promise<void>((resolve) => (running = resolve));
    const done = on.serialise(
      name,
      async (contended) => {
        running();
        await held;
        return contended;
      },
      { waitMs: 10_000 },
    );
    return { holds, release, done };
  }

  for (const where of ['in one process', 'across processes'] as const) {
    it(`${where}: a second run waits for the first, told it waited; another name does not`, async () => {
      const second = where === 'in one process' ? db : other;
      const first = hold(db, `one-at-a-time-${where}`);
      await first.holds;
      const order: string[] = [];
      let waited!: () => void;
      const waiting = new Promise<void>((resolve) => (waited = resolve));
      const next = second.serialise(
        `one-at-a-time-${where}`,
        async (contended) => {
          order.push('second');
          return contended;
        },
        { waitMs: 10_000, onContended: waited },
      );
      await waiting;
      expect(await second.serialise(`unrelated-${where}`, async (c) => c, { waitMs: 10_000 })).toBe(false);
      order.push('first ends');
      first.release();
      expect(await first.done).toBe(false);
      expect(await next).toBe(true);
      expect(order).toEqual(['first ends', 'second']);
    });

    it(`${where}: a run waiting past its bound is refused without running, and the name is free after`, async () => {
      const second = where === 'in one process' ? db : other;
      const name = `bounded-${where}`;
      const first = hold(db, name);
      await first.holds;
      let ran = false;
      // The holder never lets go before the bound is over, whatever the bound.
      await expect(
        second.serialise(
          name,
          async () => {
            ran = true;
          },
          { waitMs: 50 },
        ),
      ).rejects.toBeInstanceOf(LockWaitTimeout);
      expect(ran).toBe(false);
      first.release();
      await first.done;
      expect(await second.serialise(name, async (c) => c, { waitMs: 10_000 })).toBe(false);
    });

    it(`${where}: a run that fails lets the next one in`, async () => {
      const second = where === 'in one process' ? db : other;
      const name = `failing-${where}`;
      await expect(
        db.serialise(
          name,
          async () => {
            throw new Error('Stripe said no');
          },
          { waitMs: 10_000 },
        ),
      ).rejects.toThrow('Stripe said no');
      expect(await second.serialise(name, async (c) => c, { waitMs: 10_000 })).toBe(false);
    });
  }
});
