import { createTestDatabase, type TestDatabase } from '../test/harness';
import { LockWaitTimeout, openDatabase, type Database } from './client';

/**
 * On PostgreSQL a run of `Database.serialise` holds a pool connection (its session lock) while it
 * runs: at most half the pool, so slow runs (Stripe timing out under checkouts) leave the rest to
 * requests, and a run finding no room waits its bound like any other wait.
 */
describe('Database.serialise holds at most half the pool (postgres)', () => {
  let db: TestDatabase;
  let small: Database;
  beforeAll(async () => {
    db = await createTestDatabase();
    small = await openDatabase({ databaseUrl: db.url!, pgliteDir: '', databasePoolMax: 2 });
  });
  afterAll(async () => {
    await small?.close();
    await db?.destroy();
  });

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
