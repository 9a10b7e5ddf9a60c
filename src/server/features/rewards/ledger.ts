import { and, eq, gte, lt, sql, type Placeholder, type SQL, type SQLWrapper } from 'drizzle-orm';
import {
  ACHIEVEMENTS,
  nextLoginStreak,
  newlyUnlockedAchievements,
  type Achievement,
  type AchievementProgress,
  type LoginStreakState,
} from '@domain/rewards';
import { DAY_MS, isCalendarDay, type CalendarDay } from '@domain/calendar';
import { calendarDayInZone, rewardDayRange } from '@domain/time-zone';
import type { Db } from '../../db/client';
import { achievements, pointsLedger, pointsTotals, users } from '../../db/schema';

/**
 * The points ledger: the ONLY way points are added. Public API of the rewards feature, used by
 * activities, app-status and the photo upload hook. Every entry has a per-user unique
 * `sourceEventId`, so a replayed award hits the constraint and adds nothing.
 *
 * Event id namespaces: `login:<day>`, `streak:<day>`, `activation:<day>`, `achievement:<id>`,
 * `activity:<eventId>`, `skip:<eventId>`, `upload:<sha256 of the photo's original>`.
 */
export interface LedgerEntry {
  source: string;
  sourceEventId: string;
  points: number;
  message?: string;
  /** The service's clock (injectable in tests); the database's now() when absent. */
  createdAt?: Date;
}

export const LOGIN_SOURCE = 'login';
/** The class of the per-user advisory lock a daily-capped award takes (any fixed int4). */
const DAILY_CAP_LOCK = 0x4c_44_47_52;
export const UPLOAD_SOURCE = 'upload';

export interface LedgerSnapshot {
  totalPoints: number;
  adsSkipped: number;
  timeSaved: number;
  /**
   * Distinct photo contents the upload reward was recorded for (paid, or past the day's cap with
   * 0 points: those were uploaded too): deleting a photo does not lower it and a re-upload does
   * not raise it, so upload achievements cannot be farmed. The demo library is never rewarded, so
   * it does not count.
   */
  photosUploaded: number;
  /** Local days with a login reward, ascending. */
  loginDays: CalendarDay[];
  lastLoginAt: Date | null;
  /** Unlocked achievement ids. */
  unlocked: string[];
}

/** Local days ('YYYY-MM-DD'), ascending and distinct, from `login:<day>` event ids. */
const daysOf = (ids: readonly string[]): CalendarDay[] =>
  [...new Set(ids.map((id) => id.slice(LOGIN_SOURCE.length + 1)).filter(isCalendarDay))].sort();

/**
 * Entries as they may be written: one per event id (the first, as an insert that skips conflicts
 * keeps it) and points a whole number of at least 0, whatever a caller computed.
 */
function normalEntries(entries: readonly LedgerEntry[]): LedgerEntry[] {
  const byId = new Map<string, LedgerEntry>();
  for (const e of entries) {
    const points = Number.isFinite(e.points) && e.points > 0 ? Math.floor(e.points) : 0;
    if (!byId.has(e.sourceEventId)) byId.set(e.sourceEventId, { ...e, points });
  }
  return [...byId.values()];
}

/** The snapshot's row as read by drizzle's select or by a raw statement (arrays as text there). */
interface SnapshotRow {
  total?: unknown;
  adsSkipped?: unknown;
  timeSaved?: unknown;
  photosUploaded?: unknown;
  loginIds?: string[] | string | null;
  lastLoginAt?: Date | string | null;
  unlocked?: string[] | string | null;
}

function snapshotOf(row: SnapshotRow | undefined): LedgerSnapshot {
  const lastLoginAt = row?.lastLoginAt;
  return {
    totalPoints: Number(row?.total ?? 0),
    adsSkipped: Number(row?.adsSkipped ?? 0),
    timeSaved: Number(row?.timeSaved ?? 0),
    photosUploaded: Number(row?.photosUploaded ?? 0),
    loginDays: daysOf(parseTextArray(row?.loginIds ?? [])),
    lastLoginAt: lastLoginAt ? new Date(lastLoginAt) : null,
    unlocked: [...parseTextArray(row?.unlocked ?? [])],
  };
}

/**
 * 'login' as a literal, never a parameter: the login-days index is partial (`where source = 'login'`),
 * and a prepared statement's generic plan can use it only when the query names the same literal.
 */
const IS_LOGIN = sql.raw(`'${LOGIN_SOURCE}'`);

/**
 * The snapshot's columns. Totals come from the user's `points_totals` row (kept by triggers on every
 * ledger and activity insert, migration 0011; absent: zero), so their cost does not grow with the
 * ledger, whose size the user drives. Login days and achievements are read from their rows, one a
 * day and one an achievement, the login entries through `points_ledger_user_login_idx`.
 */
const snapshotColumns = (userId: string | Placeholder) => ({
  total: sql<string>`(select ${pointsTotals.points} from ${pointsTotals} where ${pointsTotals.userId} = ${userId})`,
  adsSkipped: sql<string>`(select ${pointsTotals.activityCount} from ${pointsTotals} where ${pointsTotals.userId} = ${userId})`,
  timeSaved: sql<string>`(select ${pointsTotals.timeSaved} from ${pointsTotals} where ${pointsTotals.userId} = ${userId})`,
  photosUploaded: sql<string>`(select ${pointsTotals.uploadEntries} from ${pointsTotals} where ${pointsTotals.userId} = ${userId})`,
  loginIds: sql<
    string[]
  >`(select coalesce(array_agg(${pointsLedger.sourceEventId}), '{}'::text[]) from ${pointsLedger} where ${pointsLedger.userId} = ${userId} and ${pointsLedger.source} = ${IS_LOGIN})`,
  lastLoginAt:
    sql<Date | null>`(select max(${pointsLedger.createdAt}) from ${pointsLedger} where ${pointsLedger.userId} = ${userId} and ${pointsLedger.source} = ${IS_LOGIN})`.mapWith(
      pointsLedger.createdAt,
    ),
  unlocked: sql<
    string[]
  >`(select coalesce(array_agg(${achievements.achievementId}), '{}'::text[]) from ${achievements} where ${achievements.userId} = ${userId})`,
});
/** The snapshot as one statement (exported for the test that checks its plan). */
export const snapshotQuery = (q: Db, userId: string | Placeholder) =>
  q.select(snapshotColumns(userId)).from(sql`(select 1) as one`);

/**
 * Runs a statement or a whole transaction again when PostgreSQL ended it as a deadlock's victim
 * (SQLSTATE 40P01, nothing of it kept). Awards take the user's totals row (the ledger's insert
 * trigger) and achievement keys in either order: a login or an activation writes its entries, then
 * unlocks what is due; an ad's or an upload's one statement inserts the achievement rows first and
 * the totals row at its end. Two of them unlocking the same achievement at once wait on each other
 * and one is ended. Every insert here is idempotent on its unique key, so the rerun adds only what
 * the other did not. The embedded database runs one transaction at a time and never deadlocks.
 */
export async function retryDeadlock<T>(run: () => Promise<T>, tries = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= tries || sqlStateOf(err) !== '40P01') throw err;
    }
  }
}

/** The SQLSTATE of a driver error, through drizzle's wrapper (the driver's error is its `cause`). */
function sqlStateOf(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

export function createLedger(db: Db) {
  /** Inserts each entry unless its event id exists (one statement); returns the entries actually added. */
  async function addEntries(tx: Db, userId: string, entries: LedgerEntry[]): Promise<LedgerEntry[]> {
    const byId = new Map(normalEntries(entries).map((e) => [e.sourceEventId, e]));
    if (byId.size === 0) return [];
    const rows = await tx
      .insert(pointsLedger)
      .values(
        [...byId.values()].map((e) => ({
          userId,
          source: e.source,
          sourceEventId: e.sourceEventId,
          points: e.points,
          message: e.message ?? null,
          createdAt: e.createdAt,
        })),
      )
      .onConflictDoNothing({ target: [pointsLedger.userId, pointsLedger.sourceEventId] })
      .returning({ sourceEventId: pointsLedger.sourceEventId });
    const inserted = new Set(rows.map((r) => r.sourceEventId));
    return [...byId.values()].filter((e) => inserted.has(e.sourceEventId));
  }

  /** Local days ('YYYY-MM-DD') with a login reward, ascending, from `login:<day>` event ids. */
  async function loginDays(tx: Db, userId: string): Promise<{ days: CalendarDay[]; lastLoginAt: Date | null }> {
    const rows = await tx
      .select({ id: pointsLedger.sourceEventId, at: pointsLedger.createdAt })
      .from(pointsLedger)
      .where(and(eq(pointsLedger.userId, userId), sql`${pointsLedger.source} = ${IS_LOGIN}`));
    const days = daysOf(rows.map((r) => r.id));
    const lastLoginAt = rows.reduce<Date | null>((m, r) => (!m || r.at > m ? r.at : m), null);
    return { days, lastLoginAt };
  }

  /** Outside a transaction the snapshot is a prepared statement (built once, parsed once per connection). */
  const snapshotPrepared = snapshotQuery(db, sql.placeholder('userId')).prepare('ledger_snapshot');
  /**
   * Points per day of a fixed UTC offset since an instant, summed in the database: at most one row a
   * day, however many entries the days hold (an ad script writes two every 13 s, uploads past the cap
   * one 0-point entry a photo). `day` is the local day's number since 1970-01-01.
   */
  const pointsByDayPrepared = db
    .select({
      day: sql<number>`floor((extract(epoch from ${pointsLedger.createdAt}) + ${sql.placeholder('offsetSeconds')}::int) / 86400)::int`.mapWith(
        Number,
      ),
      points: sql<number>`sum(${pointsLedger.points})`.mapWith(Number),
    })
    .from(pointsLedger)
    .where(
      and(eq(pointsLedger.userId, sql.placeholder('userId')), gte(pointsLedger.createdAt, sql.placeholder('since'))),
    )
    .groupBy(sql`1`)
    .prepare('ledger_points_by_day');
  /**
   * The same per day of a zone: `at time zone` follows its daylight saving changes, which a fixed
   * offset (today's) cannot: in the week after a change, an hour of each earlier day fell into its
   * neighbour.
   */
  const pointsByZoneDayPrepared = db
    .select({
      day: sql<string>`to_char(${pointsLedger.createdAt} at time zone ${sql.placeholder('zone')}::text, 'YYYY-MM-DD')`,
      points: sql<number>`sum(${pointsLedger.points})`.mapWith(Number),
    })
    .from(pointsLedger)
    .where(
      and(eq(pointsLedger.userId, sql.placeholder('userId')), gte(pointsLedger.createdAt, sql.placeholder('since'))),
    )
    .groupBy(sql`1`)
    .prepare('ledger_points_by_zone_day');

  /**
   * Everything the rewards summary, stats and the achievement check read, in ONE statement (the
   * totals row and a few rows through indexes, whatever the ledger's size): every statement costs a
   * round trip and a socket write, which dominate the server's CPU under load.
   */
  async function snapshot(tx: Db, userId: string): Promise<LedgerSnapshot> {
    const [row] = tx === db ? await snapshotPrepared.execute({ userId }) : await snapshotQuery(tx, userId);
    return snapshotOf(row);
  }

  async function progress(tx: Db, userId: string): Promise<{ progress: AchievementProgress; unlocked: string[] }> {
    const snap = await snapshot(tx, userId);
    return {
      progress: {
        photosUploaded: snap.photosUploaded,
        adsSkipped: snap.adsSkipped,
        currentStreak: streakFromDays(snap.loginDays).currentStreak,
        totalPoints: snap.totalPoints,
      },
      unlocked: snap.unlocked,
    };
  }

  /**
   * Unlocks every achievement whose threshold is reached, exactly once (the achievements primary
   * key), and adds its points as `achievement:<id>`. Loops because those points can unlock Point Master.
   */
  async function unlockAchievements(tx: Db, userId: string): Promise<Achievement[]> {
    const unlocked: Achievement[] = [];
    for (let round = 0; round < ACHIEVEMENTS.length; round++) {
      const p = await progress(tx, userId);
      const fresh = newlyUnlockedAchievements(p.progress, p.unlocked);
      if (fresh.length === 0) break;
      for (const a of fresh) {
        const rows = await tx
          .insert(achievements)
          .values({ userId, achievementId: a.id })
          .onConflictDoNothing()
          .returning({ id: achievements.achievementId });
        if (rows.length === 0) continue;
        await addEntries(tx, userId, [
          { source: 'achievement', sourceEventId: `achievement:${a.id}`, points: a.points, message: a.name },
        ]);
        unlocked.push(a);
      }
    }
    return unlocked;
  }

  /**
   * The achievements an award makes due, given the snapshot read before it and what the award
   * adds: the same loop as unlockAchievements (achievement points can unlock Point Master), in memory.
   */
  function dueAfter(
    snap: LedgerSnapshot,
    delta: { points: number; adsSkipped?: number; photosUploaded?: number },
  ): Achievement[] {
    const progress: AchievementProgress = {
      photosUploaded: snap.photosUploaded + (delta.photosUploaded ?? 0),
      adsSkipped: snap.adsSkipped + (delta.adsSkipped ?? 0),
      currentStreak: streakFromDays(snap.loginDays).currentStreak,
      totalPoints: snap.totalPoints + delta.points,
    };
    const owned = [...snap.unlocked];
    const due: Achievement[] = [];
    for (let round = 0; round < ACHIEVEMENTS.length; round++) {
      const fresh = newlyUnlockedAchievements(progress, owned);
      if (fresh.length === 0) break;
      for (const a of fresh) {
        due.push(a);
        owned.push(a.id);
        progress.totalPoints += a.points;
      }
    }
    return due;
  }

  /**
   * An event row and its award in ONE statement (atomic without a transaction, one round trip):
   * `event` is an INSERT ... ON CONFLICT DO NOTHING RETURNING `id` and `created_at` (e.g. the
   * activity); only when it inserts are the ledger `entries` added, and each `achievements` row not
   * yet unlocked inserted with its `achievement:<id>` entry. Every insert is idempotent on its
   * unique key, so a replay or a racing award adds nothing twice. `event` undefined: the row
   * already existed (a replay).
   */
  async function recordEventWithAward(
    userId: string,
    event: SQLWrapper,
    entries: LedgerEntry[],
    due: readonly Achievement[],
  ): Promise<{
    event?: { id: string; createdAt: Date };
    added: LedgerEntry[];
    newAchievements: Achievement[];
  }> {
    const normal = normalEntries(entries);
    const row = (list: SQL[]) => sql.join(list, sql`, `);
    const entryValues = row(
      normal.map((e) => sql`(${e.source}, ${e.sourceEventId}, ${e.points}::int, ${e.message ?? null}::text)`),
    );
    const achievementValues = row(due.map((a) => sql`(${a.id}, ${a.points}::int, ${a.name})`));
    const ledgerCols = sql`(user_id, source, source_event_id, points, message)`;
    // The statement: ev (the event), ach (achievements unlocked now), led (their ledger entries).
    const q = sql`with ev as (${event.getSQL()})`;
    if (due.length > 0) {
      q.append(sql`, due(id, points, message) as (values ${achievementValues}),
        ach as (insert into ${achievements} (user_id, achievement_id)
          select ${userId}::uuid, due.id from ev, due
          on conflict do nothing returning achievement_id)`);
    }
    q.append(sql`, led as (insert into ${pointsLedger} ${ledgerCols}
        select ${userId}::uuid, e.source, e.sid, e.points, e.message
          from ev, (values ${entryValues}) as e(source, sid, points, message)`);
    if (due.length > 0) {
      q.append(sql` union all
        select ${userId}::uuid, 'achievement', 'achievement:' || ach.achievement_id, due.points, due.message
          from ach join due on due.id = ach.achievement_id`);
    }
    q.append(sql` on conflict (user_id, source_event_id) do nothing returning source_event_id)
      select ev.id::text as id, ev.created_at as created_at,
        (select coalesce(array_agg(source_event_id), '{}'::text[]) from led) as added
      from ev`);
    const res = (await retryDeadlock(() => db.execute(q))) as unknown as {
      rows: Array<{ id: string; created_at: Date | string; added: string[] | string }>;
    };
    const r = res.rows[0];
    if (!r) return { added: [], newAchievements: [] };
    const ids = new Set(parseTextArray(r.added));
    return {
      event: { id: r.id, createdAt: r.created_at instanceof Date ? r.created_at : new Date(r.created_at) },
      added: normal.filter((e) => ids.has(e.sourceEventId)),
      newAchievements: due.filter((a) => ids.has(`achievement:${a.id}`)),
    };
  }

  /**
   * The award statement: inserts the entries not yet in the ledger and reads the snapshot as it
   * was before them (a statement's subqueries do not see its own inserts, nor what the totals
   * triggers write after them). With `cap`, only the
   * first of them up to `perDay` minus what the day [start, end) already credited of their source
   * keep their points; the rest are written with 0 (recorded, never credited later). Answers the
   * added event ids, those credited (points above 0), and the snapshot's columns.
   */
  function awardStatement(
    userId: string,
    normal: LedgerEntry[],
    cap?: { source: string; perDay: number; start: Date; end: Date },
  ): SQL {
    const values = sql.join(
      normal.map(
        (e, i) =>
          sql`(${userId}::uuid, ${e.source}, ${e.sourceEventId}, ${e.points}::int, ${e.message ?? null}::text, ${e.createdAt ?? null}::timestamptz, ${i}::int)`,
      ),
      sql`, `,
    );
    const points = cap
      ? sql`case when f.rn <= ${cap.perDay}::int - credited.n then f.points else 0 end`
      : sql`f.points`;
    const q = sql`with v(user_id, source, sid, points, message, at, ord) as (values ${values})`;
    if (cap) {
      q.append(sql`, credited as (select count(*)::int as n from ${pointsLedger}
          where ${pointsLedger.userId} = ${userId} and ${pointsLedger.source} = ${cap.source}
            and ${pointsLedger.points} > 0 and ${pointsLedger.createdAt} >= ${cap.start.toISOString()}::timestamptz
            and ${pointsLedger.createdAt} < ${cap.end.toISOString()}::timestamptz)`);
    }
    // The entries not in the ledger yet, numbered in the caller's order: who gets the day's last
    // credits is decided here (under the caller's lock with a cap), not by conflicts.
    q.append(sql`, fresh as (select v.*, row_number() over (order by v.ord) as rn from v
          where not exists (select 1 from ${pointsLedger} l where l.user_id = v.user_id and l.source_event_id = v.sid)),
        led as (insert into ${pointsLedger} (user_id, source, source_event_id, points, message, created_at)
          select f.user_id, f.source, f.sid, ${points}, f.message, coalesce(f.at, now())
            from fresh f${cap ? sql` cross join credited` : sql``}
          on conflict (user_id, source_event_id) do nothing returning source_event_id, points)
      select (select coalesce(array_agg(source_event_id), '{}'::text[]) from led) as added,
        (select coalesce(array_agg(source_event_id), '{}'::text[]) from led where points > 0) as credited, `);
    q.append(
      sql.join(
        Object.entries(snapshotColumns(userId)).map(([name, col]) => sql`${col} as ${sql.identifier(name)}`),
        sql`, `,
      ),
    );
    return q;
  }

  /**
   * Adds entries and unlocks what they make due, in ONE statement when nothing is due (the usual
   * case) and two when something is. The first inserts the entries and reads the snapshot as it
   * was before them; what the added ones make due is then computed as in `dueAfter`, and those
   * achievements and their entries are inserted in a second statement. Every insert is idempotent
   * on its unique key, so a replay or a racing award adds nothing twice. Two racing awards may
   * each miss a threshold that only both together reach; the next award (or login) unlocks it,
   * since `dueAfter` looks at the whole progress, not only at what crossed a threshold now.
   *
   * `dailyCap` (entries of one source): at most `perDay` of them credited per day of the user's
   * stored zone, the day of `at`, counted from the ledger. Racing awards would each count the day
   * from their own snapshot, so the statement runs in a transaction behind a per-user lock taken
   * first (4 round trips instead of 1): the second award counts what the first committed. Entries
   * past the cap are added with 0 points. `added` holds the points each entry actually got.
   */
  async function awardInOne(
    userId: string,
    entries: LedgerEntry[],
    dailyCap?: { perDay: number; at: Date },
  ): Promise<{ added: LedgerEntry[]; newAchievements: Achievement[] }> {
    const normal = normalEntries(entries);
    if (normal.length === 0) return { added: [], newAchievements: await unlockAchievements(db, userId) };
    type AwardRow = SnapshotRow & { added?: string[] | string; credited?: string[] | string };
    let r: AwardRow | undefined;
    if (dailyCap) {
      const source = normal[0]!.source;
      if (normal.some((e) => e.source !== source)) throw new Error('a daily cap counts entries of one source');
      r = await retryDeadlock(() =>
        db.transaction(async (raw) => {
          const tx = raw as unknown as Db;
          // Two-key advisory locks never meet the one-key blob locks (db/locks.ts).
          const lock =
            (await tx.execute(sql`select pg_advisory_xact_lock(${DAILY_CAP_LOCK}::int, hashtext(${`${source}:${userId}`}::text)),
            u.time_zone, u.previous_time_zone, u.time_zone_set_at
            from (select 1) one left join ${users} u on u.id = ${userId}`)) as unknown as {
              rows: Array<{
                time_zone: string | null;
                previous_time_zone: string | null;
                time_zone_set_at: Date | string | null;
              }>;
            };
          const z = lock.rows[0];
          const { start, end } = rewardDayRange(dailyCap.at, {
            timeZone: z?.time_zone ?? null,
            previousTimeZone: z?.previous_time_zone ?? null,
            setAt: z?.time_zone_set_at ? new Date(z.time_zone_set_at) : null,
          });
          const res = (await tx.execute(
            awardStatement(userId, normal, { source, perDay: dailyCap.perDay, start, end }),
          )) as unknown as { rows: AwardRow[] };
          return res.rows[0];
        }),
      );
    } else {
      const res = (await retryDeadlock(() => db.execute(awardStatement(userId, normal)))) as unknown as {
        rows: AwardRow[];
      };
      r = res.rows[0];
    }
    const ids = new Set(parseTextArray(r?.added ?? []));
    const credited = new Set(parseTextArray(r?.credited ?? []));
    const added = normal
      .filter((e) => ids.has(e.sourceEventId))
      .map((e) => (credited.has(e.sourceEventId) ? e : { ...e, points: 0 }));
    const before = snapshotOf(r);
    const due = dueAfter(before, {
      points: added.reduce((s, e) => s + e.points, 0),
      photosUploaded: added.filter((e) => e.source === UPLOAD_SOURCE).length,
    });
    if (due.length === 0) return { added, newAchievements: [] };
    const dueValues = sql.join(
      due.map((a) => sql`(${a.id}, ${a.points}::int, ${a.name})`),
      sql`, `,
    );
    const unlock = (await retryDeadlock(() =>
      db.execute(sql`with due(id, points, message) as (values ${dueValues}),
        ach as (insert into ${achievements} (user_id, achievement_id)
          select ${userId}::uuid, due.id from due on conflict do nothing returning achievement_id),
        led as (insert into ${pointsLedger} (user_id, source, source_event_id, points, message)
          select ${userId}::uuid, 'achievement', 'achievement:' || ach.achievement_id, due.points, due.message
            from ach join due on due.id = ach.achievement_id
          on conflict (user_id, source_event_id) do nothing returning source_event_id)
      select coalesce(array_agg(source_event_id), '{}'::text[]) as added from led`),
    )) as unknown as {
      rows: Array<{ added: string[] | string }>;
    };
    const unlocked = new Set(parseTextArray(unlock.rows[0]?.added ?? []));
    return { added, newAchievements: due.filter((a) => unlocked.has(`achievement:${a.id}`)) };
  }

  /**
   * The user's calendar day at `at`, in the zone stored on the account (UTC without one). Offsets the
   * client sends are never used for this: they let one person claim several days in an hour.
   * `lock` holds the user's row until the transaction ends, so two logins decide one after the other
   * (see `rewardDay` for the lock's mode).
   */
  async function userDay(tx: Db, userId: string, at: Date, opts: { lock?: boolean } = {}): Promise<CalendarDay> {
    const query = tx.select({ timeZone: users.timeZone }).from(users).where(eq(users.id, userId)).limit(1);
    const [row] = opts.lock ? await query.for('no key update') : await query;
    return calendarDayInZone(at, row?.timeZone ?? null);
  }

  /**
   * The day a daily reward counts by at `at` (rewardDayRange: the stored zone's day, reaching back
   * to the old zone's day on the day the zone changed). `lock` holds the user's row until the
   * transaction ends, so two awards decide one after the other. FOR NO KEY UPDATE, never FOR UPDATE:
   * that would also block every foreign-key check on the user's row (each insert of a ledger entry,
   * achievement or activity), so an award whose one statement held a row this transaction needs
   * next (the totals row, an achievement) and then checked its keys deadlocked with it
   * (`hardening/user-row-lock.pg.api.test.ts`).
   */
  async function rewardDay(
    tx: Db,
    userId: string,
    at: Date,
    opts: { lock?: boolean } = {},
  ): Promise<{ day: CalendarDay; start: Date; end: Date }> {
    const query = tx
      .select({ timeZone: users.timeZone, previousTimeZone: users.previousTimeZone, setAt: users.timeZoneSetAt })
      .from(users)
      .where(eq(users.id, userId))
      .limit(1);
    const [row] = opts.lock ? await query.for('no key update') : await query;
    return rewardDayRange(at, {
      timeZone: row?.timeZone ?? null,
      previousTimeZone: row?.previousTimeZone ?? null,
      setAt: row?.setAt ?? null,
    });
  }

  /** Whether any entry of `source` was written in [start, end). */
  async function givenBetween(tx: Db, userId: string, source: string, start: Date, end: Date): Promise<boolean> {
    const [row] = await tx
      .select({ id: pointsLedger.id })
      .from(pointsLedger)
      .where(
        and(
          eq(pointsLedger.userId, userId),
          gte(pointsLedger.createdAt, start),
          lt(pointsLedger.createdAt, end),
          eq(pointsLedger.source, source),
        ),
      )
      .limit(1);
    return row !== undefined;
  }

  /** The reads and writes that take part in a transaction, on one handle (the database or the transaction). */
  const on = (q: Db): LedgerTx => ({
    rewardDay: (userId: string, at: Date, opts?: { lock?: boolean }) => rewardDay(q, userId, at, opts),
    givenBetween: (userId: string, source: string, start: Date, end: Date) =>
      givenBetween(q, userId, source, start, end),
    addEntries: (userId: string, entries: LedgerEntry[]) => addEntries(q, userId, entries),
    unlockAchievements: (userId: string) => unlockAchievements(q, userId),
    loginDays: (userId: string) => loginDays(q, userId),
    snapshot: (userId: string) => snapshot(q, userId),
    userDay: (userId: string, at: Date, opts?: { lock?: boolean }) => userDay(q, userId, at, opts),
  });

  return {
    ...on(db),
    dueAfter,
    recordEventWithAward,
    awardInOne,
    /** Runs `fn` in one transaction: everything it does through the handed ledger commits together. */
    transaction<T>(fn: (tx: LedgerTx) => Promise<T>): Promise<T> {
      return retryDeadlock(() => db.transaction((tx) => fn(on(tx as unknown as Db))));
    },
    /** Adds entries and unlocks achievements in one transaction. */
    async award(userId: string, entries: LedgerEntry[]) {
      return retryDeadlock(() =>
        db.transaction(async (raw) => {
          const tx = raw as unknown as Db;
          const added = await addEntries(tx, userId, entries);
          const newAchievements = await unlockAchievements(tx, userId);
          return { added, newAchievements };
        }),
      );
    },
    /**
     * The points of each local day (`utcOffsetMinutes` east of UTC) since `since`, for the per-day
     * chart: one entry a day, its `createdAt` the local day's start.
     */
    async pointsByDaySince(
      userId: string,
      since: Date,
      utcOffsetMinutes: number,
    ): Promise<Array<{ points: number; createdAt: Date }>> {
      const offsetMs = utcOffsetMinutes * 60_000;
      const rows = await pointsByDayPrepared.execute({
        userId,
        since: since.toISOString(),
        offsetSeconds: utcOffsetMinutes * 60,
      });
      return rows.map((r) => ({ points: r.points, createdAt: new Date(r.day * DAY_MS - offsetMs) }));
    },
    /**
     * The points of each day of `zone` since `since`; null when the database does not know the zone
     * (its zone data can be older than the JavaScript engine's, which validated the name).
     */
    async pointsByZoneDaySince(
      userId: string,
      since: Date,
      zone: string,
    ): Promise<Array<{ date: CalendarDay; points: number }> | null> {
      try {
        const rows = await pointsByZoneDayPrepared.execute({ userId, since: since.toISOString(), zone });
        return rows.filter((r) => isCalendarDay(r.day)).map((r) => ({ date: r.day, points: r.points }));
      } catch (err) {
        if (isUnknownZone(err)) return null;
        throw err;
      }
    },
  };
}

/** The ledger's reads and writes that take part in a transaction (`ledger.transaction` hands one in). */
export interface LedgerTx {
  addEntries(userId: string, entries: LedgerEntry[]): Promise<LedgerEntry[]>;
  unlockAchievements(userId: string): Promise<Achievement[]>;
  loginDays(userId: string): Promise<{ days: CalendarDay[]; lastLoginAt: Date | null }>;
  snapshot(userId: string): Promise<LedgerSnapshot>;
  userDay(userId: string, at: Date, opts?: { lock?: boolean }): Promise<CalendarDay>;
  rewardDay(userId: string, at: Date, opts?: { lock?: boolean }): Promise<{ day: CalendarDay; start: Date; end: Date }>;
  givenBetween(userId: string, source: string, start: Date, end: Date): Promise<boolean>;
}
export type Ledger = ReturnType<typeof createLedger>;

/** A text[] as the driver gives it: an array, or PostgreSQL's text form '{a,"b c"}' (ids hold no quotes). */
function parseTextArray(v: string[] | string): string[] {
  if (Array.isArray(v)) return v;
  const inner = v.replace(/^\{|\}$/g, '');
  return inner ? inner.split(',').map((x) => x.replace(/^"|"$/g, '')) : [];
}

/** Streak after replaying each login day through the domain rule, oldest first. */
export function streakFromDays(days: readonly CalendarDay[]): LoginStreakState {
  let state: LoginStreakState = { lastLoginDay: null, currentStreak: 0 };
  for (const day of days) {
    const r = nextLoginStreak(state, day);
    state = { lastLoginDay: r.isNewDay ? day : state.lastLoginDay, currentStreak: r.currentStreak };
  }
  return state;
}

/** PostgreSQL's invalid_parameter_value for a zone name it does not know (drizzle wraps it as `cause`). */
function isUnknownZone(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code === '22023' && typeof message === 'string' && message.includes('time zone')) return true;
  }
  return false;
}
