import { createTestDatabase, type TestDatabase } from '../test/harness';
import { LockWaitTimeout, openDatabase, type Database } from './client';

/** One database for the file; `small`, a pool of 3, is the least DATABASE_POOL_MAX allows. */
let db: TestDatabase;
let small: Database;
beforeAll(async () => {
  db = await createTestDatabase();
  small = await openDatabase({ databaseUrl: db.url!, pgliteDir: '', databasePoolMax: 3 });
});
afterAll(async () => {
  await small?.close();
  await db?.destroy();
});

/**
 * On PostgreSQL a run of `Database.serialise` holds a pool connection (its session lock) while it
 * runs: at most half the pool, so slow runs (Stripe timing out under checkouts) leave the rest to
 * requests, and a run finding no room waits its bound like any other wait.
 */
describe('Database.serialise holds at most half the pool (postgres)', () => {
  it('a run of another name waits for room past its bound, while plain statements still get a connection', async () => {
    let release!: () => void;
    let running!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holds = new Promise<void>((resolve) => (running = resolve));
    const first = small.serialise(
      'room-a',
      async () => {
        running();
        await held;
      },
      { waitMs: 10_000 },
    );
    await holds;
    const refused = await small.serialise('room-b', async () => 'ran', { waitMs: 50 }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(LockWaitTimeout);
    expect((refused as LockWaitTimeout).waitedFor).toBe('capacity');
    // The pool's other connection is the requests'.
    await small.ping();
    release();
    await first;
    expect(await small.serialise('room-b', async () => 'ran', { waitMs: 10_000 })).toBe('ran');
  });
});

/**
 * Every connection a run of `runAlone` or `serialise` holds for its session lock is one its own
 * work (and the process's requests) cannot use. With a small pool they could hold all of it: the
 * orphan sweep and the smart-album repair both start with the server, and a checkout beside them
 * took the last connection, so every statement of the process, theirs included, waited out the
 * pool's 10 s and answered 503.
 */
describe('runs holding locks leave the pool a connection (postgres)', () => {
  it('two runAlone runs and a checkout at once: statements still get a connection, and every run runs', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    let sweepRunning!: () => void;
    const sweepHolds = new Promise<void>((resolve) => (sweepRunning = resolve));
    const sweep = small.runAlone('test-sweep', async () => {
      started.push('sweep');
      sweepRunning();
      await held;
      return 'swept';
    });
    await sweepHolds;
    const repair = small.runAlone('test-repair', async () => {
      started.push('repair');
      await small.ping();
      return 'repaired';
    });
    let checkoutRunning!: () => void;
    const checkoutHolds = new Promise<void>((resolve) => (checkoutRunning = resolve));
    const checkout = small.serialise(
      'test-checkout',
      async () => {
        checkoutRunning();
        await small.ping();
        await held;
        return 'checked out';
      },
      { waitMs: 10_000 },
    );
    await checkoutHolds;
    await expect(small.ping()).resolves.toBeUndefined();
    release();
    expect(await Promise.all([sweep, repair, checkout])).toEqual([
      { ran: true, value: 'swept' },
      { ran: true, value: 'repaired' },
      'checked out',
    ]);
    expect(started).toEqual(['sweep', 'repair']);
  });
});

describe('a runAlone run whose turn comes after the database closed (postgres)', () => {
  it('does not run, and does not fail', async () => {
    const database = await openDatabase({ databaseUrl: db.url!, pgliteDir: '', databasePoolMax: 3 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const holds = new Promise<void>((resolve) => (holding = resolve));
    const first = database.runAlone('test-first', async () => {
      holding();
      await held;
    });
    await holds;
    let ran = false;
    const late = database.runAlone('test-late', async () => {
      ran = true;
    });
    const closed = database.close();
    release();
    await first;
    expect(await late).toEqual({ ran: false });
    expect(ran).toBe(false);
    await closed;
  });
});
