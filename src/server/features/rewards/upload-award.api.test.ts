import type { Db } from '../../db/client';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';
import { createLedger, type LedgerEntry } from './ledger';

const upload = (hash: string): LedgerEntry => ({
  source: 'upload',
  sourceEventId: `upload:${hash.repeat(64)}`,
  points: 5,
  message: 'Photo uploaded successfully!',
});

/**
 * The upload reward is one statement when no achievement is due (it runs on every upload's
 * answer path), two when one is; points stay once per content and achievements once per user.
 */
describe(`upload award in one statement (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** A ledger whose database handle counts the statements sent and the transactions opened. */
  function countingLedger() {
    const calls = { execute: 0, transaction: 0, other: 0 };
    const db = t.database.db;
    const counted = new Proxy(db, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          if (prop === 'execute') calls.execute += 1;
          else if (prop === 'transaction') calls.transaction += 1;
          else calls.other += 1;
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as Db;
    const ledger = createLedger(counted);
    // Building the prepared statements is not a round trip.
    Object.assign(calls, { execute: 0, transaction: 0, other: 0 });
    return { ledger, calls };
  }

  it('adds a photo reward with one statement and no transaction once First Steps is owned', async () => {
    const { user } = await signUp(t.app);
    const first = await createLedger(t.database.db).awardInOne(user.id, [upload('a')]);
    expect(first.newAchievements.map((a) => a.id)).toEqual(['first_steps']);
    const { ledger, calls } = countingLedger();
    const second = await ledger.awardInOne(user.id, [upload('b'), upload('c')]);
    expect(second.added.map((e) => e.sourceEventId)).toEqual([upload('b').sourceEventId, upload('c').sourceEventId]);
    expect(second.newAchievements).toEqual([]);
    expect(calls).toEqual({ execute: 1, transaction: 0, other: 0 });
    const snap = await ledger.snapshot(user.id);
    expect(snap).toMatchObject({ totalPoints: 5 + 25 + 10, photosUploaded: 3, unlocked: ['first_steps'] });
  });

  it('unlocks what the reward makes due in the same answer, achievement points included, each once', async () => {
    const { user } = await signUp(t.app);
    const ledger = createLedger(t.database.db);
    await ledger.addEntries(user.id, [{ source: 'test', sourceEventId: 'test:seed', points: 470 }]);
    // 470 + 5 = 475; First Steps (+25) makes 500: Point Master too.
    const r = await ledger.awardInOne(user.id, [upload('d')]);
    expect(r.added).toHaveLength(1);
    expect(r.newAchievements.map((a) => a.id)).toEqual(['first_steps', 'point_master']);
    const again = await ledger.awardInOne(user.id, [upload('d')]);
    expect(again).toEqual({ added: [], newAchievements: [] });
    const snap = await ledger.snapshot(user.id);
    expect(snap.totalPoints).toBe(470 + 5 + 25 + 75);
    expect(snap.unlocked.sort()).toEqual(['first_steps', 'point_master']);
  });

  it('credits racing awards of the same contents once', async () => {
    const { user } = await signUp(t.app);
    const ledger = createLedger(t.database.db);
    const batch = ['e', 'f', 'g'].map(upload);
    const raced = await Promise.all(Array.from({ length: 4 }, () => ledger.awardInOne(user.id, batch)));
    expect(raced.reduce((n, r) => n + r.added.length, 0)).toBe(3);
    const snap = await ledger.snapshot(user.id);
    expect(snap.photosUploaded).toBe(3);
    expect(snap.unlocked).toEqual(['first_steps']);
    expect(snap.totalPoints).toBe(3 * 5 + 25);
  });

  it('credits racing capped awards no more than the day allows, and records the rest with 0 points', async () => {
    const { user } = await signUp(t.app);
    const ledger = createLedger(t.database.db);
    const at = new Date();
    const cap = { perDay: 3, at };
    const hashes = ['h', 'i', 'j', 'k', 'l', 'm', 'n', 'z'];
    const raced = await Promise.all(
      hashes.map((h) => ledger.awardInOne(user.id, [{ ...upload(h), createdAt: at }], cap)),
    );
    const credited = raced.flatMap((r) => r.added).filter((e) => e.points > 0);
    expect(credited).toHaveLength(3);
    expect(raced.reduce((n, r) => n + r.added.length, 0)).toBe(hashes.length);
    const snap = await ledger.snapshot(user.id);
    expect(snap.photosUploaded).toBe(hashes.length);
    // Capped photos count as uploaded (First Steps), never as points.
    expect(snap.totalPoints).toBe(3 * 5 + 25);
    // The next day (of the stored zone, UTC here) has its own credits.
    const tomorrow = { perDay: 3, at: new Date(at.getTime() + 86_400_000) };
    const next = await ledger.awardInOne(user.id, [{ ...upload('0'), createdAt: tomorrow.at }], tomorrow);
    expect(next.added.map((e) => e.points)).toEqual([5]);
  });

  it('unlocks a threshold reached earlier without its achievement (e.g. missed by racing awards)', async () => {
    const { user } = await signUp(t.app);
    const ledger = createLedger(t.database.db);
    await ledger.addEntries(user.id, ['o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x'].map(upload));
    const r = await ledger.awardInOne(user.id, [upload('y')]);
    expect(r.newAchievements.map((a) => a.id)).toEqual(['first_steps', 'photo_collector']);
    expect((await ledger.snapshot(user.id)).totalPoints).toBe(11 * 5 + 25 + 50);
  });
});
