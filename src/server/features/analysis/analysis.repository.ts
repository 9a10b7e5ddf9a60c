import { and, count, eq, getTableName, inArray, sql } from 'drizzle-orm';
import type { Database, Db } from '../../db/client';
import type { Tx } from '../../db/locks';
import { jobs, photos } from '../../db/schema';
import { wantPassAgain } from '../../db/passes';
import { SMART_ALBUM_REPAIR } from '../albums/index';
import { lockOwner } from '../photos/index';

export const ANALYZE_JOB = 'analyze-photo';
/**
 * A claim reads this many times its limit of runnable jobs per user, and keeps as many in turn
 * order: room for the jobs other workers hold locked at that moment (skipped).
 */
const CLAIM_SLACK = 8;
/** Queuing this many jobs at once renews the table's planner statistics (after the answer). */
export const ANALYZE_AFTER_JOBS = 1000;
/** The highest user id: the ring's end before any claim has served anyone (so the walk starts at the lowest). */
const MAX_UUID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
/** The highest job id: (user, MAX_JOB_ID) sorts after every job of that user. */
const MAX_JOB_ID = '9223372036854775807';
/** Below every user id (a random uuid is never all zeros): where the ring's second lap starts. */
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
/**
 * A job that may be claimed now: waiting and due, or running past its lock (its worker died).
 * Raw SQL over the alias `j`, which every statement using it gives `jobs`.
 */
const RUNNABLE = sql.raw(
  "case j.status when 'queued' then j.run_after <= now() when 'running' then j.locked_until < now() else false end",
);

export interface ClaimedJob {
  id: number;
  userId: string;
  photoId: string;
  attempts: number;
}

/**
 * Work that must commit with a photo's final result (its smart-album memberships): run inside the
 * transaction that marks the photo analysed and closes its job.
 */
export type SettleInTransaction = (tx: Tx, userId: string, photoId: string) => Promise<void>;

export interface AnalysisOutcome {
  category: string;
  tags: string[];
  description: string;
  faceCount: number;
}

/**
 * `settle` in a savepoint of `tx` when `lastAttempt`: its failure is rolled back alone and the
 * result commits without it ('left'). On an earlier attempt it fails the whole transaction, so
 * the photo is tried again with its albums. On the last, the whole transaction failing too left
 * the job 'running' under its lock, taken again every 5 minutes and failing again for as long as
 * the album write did, never marked done or failed. The photo's smart albums are then brought in
 * step by the next sync of them: the smart-album repair, made due again for the next start in the
 * same transaction (it runs once per database, `repairSmartAlbumsOnce`).
 */
async function settleIn(
  tx: Tx,
  job: ClaimedJob,
  settle: SettleInTransaction | undefined,
  lastAttempt: boolean,
): Promise<'settled' | 'left'> {
  if (!settle) return 'settled';
  if (!lastAttempt) {
    await settle(tx, job.userId, job.photoId);
    return 'settled';
  }
  try {
    await tx.transaction((sp) => settle(sp, job.userId, job.photoId));
    return 'settled';
  } catch {
    await wantPassAgain(tx, SMART_ALBUM_REPAIR);
    return 'left';
  }
}

function rowsOf<T>(res: unknown): T[] {
  return (res as { rows: T[] }).rows;
}

/**
 * The `jobs` table as a queue. Claiming uses `FOR UPDATE SKIP LOCKED`, so several workers (or
 * server processes) never take the same job; a claimed job carries `locked_until`, and a job
 * still 'running' after that (its worker died) is claimed again.
 */
export function createAnalysisRepository(db: Db) {
  /**
   * The user the last claim served last, in this process: the next claim starts after it, so the
   * users with runnable jobs are served round the ring of user ids.
   */
  let cursor: string | undefined;

  return {
    /**
     * Queues every unanalysed photo of the user that has no pending job yet; returns how many were
     * added. Under the user's lock, which every delete of their photos takes first: on PostgreSQL a
     * delete committed between the insert's read of the photos and its foreign key checks failed
     * Analyze Photos with a 500.
     */
    async enqueueUnanalysed(userId: string): Promise<number> {
      return db.transaction(async (tx) => {
        await lockOwner(tx, userId);
        const res = await tx.execute(sql`
          insert into ${jobs} (kind, user_id, photo_id)
          select ${ANALYZE_JOB}, p.user_id, p.id from ${photos} p
          where p.user_id = ${userId} and p.analyzed = false
          order by p.uploaded_at, p.id
          on conflict do nothing
          returning id`);
        return rowsOf(res).length;
      });
    },

    /**
     * Queues every uploaded photo left unanalysed with no job, at start: the upload's row commits
     * before its job is queued (a hook of the photos feature, after the insert), so a process killed
     * between the two left a photo that no job would ever analyse. Demo-library photos wait for
     * Analyze Photos, as in `enqueuePhoto`. Idempotent: a photo with a pending job is passed over.
     */
    async enqueueStranded(): Promise<number> {
      const res = await db.execute(sql`
        insert into ${jobs} (kind, user_id, photo_id)
        select ${ANALYZE_JOB}, p.user_id, p.id from ${photos} p
        where p.analyzed = false and p.demo_key is null
        order by p.uploaded_at, p.id
        on conflict do nothing
        returning id`);
      return rowsOf(res).length;
    },

    /**
     * The queue's planner statistics, made anew: the embedded database has no autovacuum, and
     * PostgreSQL's comes up to a minute later. Run after queuing ANALYZE_AFTER_JOBS or more.
     * `maintenance` (Database.query) runs it without the bound on request statements: ANALYZE
     * waits for an autovacuum of the table to finish, however long that takes.
     */
    async renewStatistics(maintenance?: Database['query']): Promise<void> {
      if (maintenance) await maintenance(`analyze ${getTableName(jobs)}`, { long: true });
      else await db.execute(sql`analyze ${jobs}`);
    },

    /** A freshly uploaded photo; demo-library photos are left for Analyze Photos. */
    async enqueuePhoto(userId: string, photoId: string): Promise<void> {
      // The demo library waits for Analyze Photos (the organizer's first-run experience).
      await db.execute(sql`
        insert into ${jobs} (kind, user_id, photo_id)
        select ${ANALYZE_JOB}, p.user_id, p.id from ${photos} p
        where p.id = ${photoId} and p.user_id = ${userId} and p.analyzed = false and p.demo_key is null
        on conflict do nothing`);
    },

    /**
     * Takes up to `limit` runnable jobs in turns per user: the users with runnable jobs are served
     * round the ring of user ids, each claim starting after the user the previous one served last,
     * and every user a claim finds gets its oldest runnable job before any gets a second. In the
     * order they were queued, one user's Analyze Photos over a large library kept every other
     * user's new photos waiting behind all of it (hours of the vision threads).
     *
     * Its cost follows `limit`, not the queue: the walk stops at `limit * CLAIM_SLACK` users with a
     * runnable job, one index probe each (visiting every user with pending jobs cost 43.6 ms at
     * 3,000 users with one job each on PGlite). Users whose pending jobs are all held by a worker
     * or waiting out a retry's delay are passed inside the probes, which read those jobs' index
     * entries: at most the jobs in flight in every process plus those failed within the last
     * retry delays, so neither the number of such users nor one user's queue stalls or lengthens
     * the walk.
     */
    async claim(limit: number, lockMs: number): Promise<ClaimedJob[]> {
      if (limit <= 0) return [];
      const enough = limit * CLAIM_SLACK;
      const ringEnd = cursor ?? MAX_UUID;
      // A case, like the re-check below: with statistics older than a large Analyze Photos, a plain
      // kind test was planned through jobs_pending_photo_uq, all of it for each user.
      const mayRun = sql`case when j.kind = ${ANALYZE_JOB} and j.photo_id is not null then ${RUNNABLE} else false end`;
      // The probes range over (user_id, id) and order by both, which only jobs_pending_user_idx
      // gives: on statistics older than a large Analyze Photos, a probe for one user's next job
      // by equality was planned (depending on the sampled layout) as a bitmap scan of all that
      // user's jobs and a sort, 540 ms at 100,000 jobs on PGlite.
      const res = await db.execute(sql`
        with recursive walk(user_id, lap, step, first_job) as (
          select ${ringEnd}::uuid, 0, 0, null::bigint
          union all
          select nj.user_id, nx.lap, w.step + 1, nx.id
          from walk w
          -- The first runnable job past this user: in lap 0 after it, else (lap 1) from the lowest
          -- user id up to the ring's end. offset 0 runs each probe once, not once per expression.
          cross join lateral (select case when w.lap = 0 then (
                select j.id from ${jobs} j
                where j.status in ('queued', 'running') and j.user_id > w.user_id and ${mayRun}
                order by j.user_id, j.id limit 1) end as id offset 0) later
          -- The ring's end is tested on the job found, not in the range: a range closed at both
          -- ends was estimated as a few rows and planned through jobs_user_idx and a sort, which
          -- read every job in it (2,505 per probe, 20 ms a claim at 20,000 jobs on PostgreSQL).
          cross join lateral (select case when later.id is null then (
                select case when j.user_id <= ${ringEnd}::uuid then j.id end from ${jobs} j
                where j.status in ('queued', 'running') and ${mayRun}
                  and (j.user_id, j.id) > (case when w.lap = 0 then ${NIL_UUID}::uuid else w.user_id end, ${MAX_JOB_ID}::bigint)
                order by j.user_id, j.id limit 1) end as id offset 0) wrapped
          cross join lateral (select coalesce(later.id, wrapped.id) as id,
                case when later.id is null then 1 else 0 end as lap offset 0) nx
          join ${jobs} nj on nj.id = nx.id
          where w.step < ${enough}
        ),
        found as (select user_id, step, first_job from walk where step > 0),
        -- Each found user's next runnable jobs, one probe each, as many turns as the found users'
        -- first turns leave room for.
        turns(user_id, step, turn, id) as (
          select user_id, step, 1, first_job from found
          union all
          select t.user_id, t.step, t.turn + 1, nx.id
          from turns t
          cross join lateral (
            select j.user_id, j.id from ${jobs} j
            where j.status in ('queued', 'running') and (j.user_id, j.id) > (t.user_id, t.id) and ${mayRun}
            order by j.user_id, j.id limit 1) nx
          where nx.user_id = t.user_id and t.turn < (select ceil(${enough}::numeric / count(*)) from found)
        ),
        waiting as (
          select id, row_number() over (order by turn, step) as rank from turns
          order by rank
          -- Room for the jobs other workers hold locked at this moment (skipped below).
          limit ${enough}
        ),
        picked as (
          -- By primary key: the embedded database has no autovacuum to keep statistics, and with
          -- none a join here was planned as a scan of every pending job.
          select j.id from ${jobs} j
          where j.id = any(array(select id from waiting))
            -- Again on the row locked: a job another worker claimed and committed since this
            -- statement began is read afresh here, and skipped (a job's kind and photo never change).
            -- Written as a case so that no partial index's predicate follows from it, which would
            -- let the planner read the whole index instead of these few rows.
            and ${RUNNABLE}
          order by (select w.rank from waiting w where w.id = j.id)
          limit ${limit}
          for update of j skip locked
        ),
        claimed as (
          update ${jobs} set status = 'running', attempts = attempts + 1,
            locked_until = now() + (${lockMs} * interval '1 millisecond'), updated_at = now()
          where id = any(array(select id from picked))
          returning id, user_id, photo_id, attempts
        )
        select c.id, c.user_id, c.photo_id, c.attempts, f.step as position,
          (select user_id from walk order by step desc limit 1) as walked_to
        from claimed c join found f on f.user_id = c.user_id`);
      const rows = rowsOf<{
        id: number | string;
        user_id: string;
        photo_id: string;
        attempts: number;
        position: number;
        walked_to: string;
      }>(res);
      if (rows.length === limit) {
        // The users found but not served this time come first next time.
        cursor = rows.reduce((a, r) => (r.position > a.position ? r : a)).user_id;
      } else if (rows.length > 0) {
        // Every runnable job found was taken (or held by a claim racing this one).
        cursor = rows[0]!.walked_to;
      }
      return rows.map((r) => ({
        id: Number(r.id),
        userId: r.user_id,
        photoId: r.photo_id,
        attempts: Number(r.attempts),
      }));
    },

    /**
     * Closes a job whose photo is already analysed (Analyze Photos can queue a photo again in
     * the instant between its running job's insert check and that job finishing), so no photo is
     * analysed twice. True when the job was closed here.
     */
    async closeIfAnalyzed(job: ClaimedJob): Promise<boolean> {
      const res = await db.execute(sql`
        update ${jobs} set status = 'done', locked_until = null, updated_at = now()
        where id = ${job.id} and exists (
          select 1 from ${photos} p where p.id = ${job.photoId} and p.user_id = ${job.userId} and p.analyzed)
        returning id`);
      return rowsOf(res).length > 0;
    },

    /** The preview blob key of the job's photo, read by owner so jobs of two users cannot mix. */
    async previewKey(userId: string, photoId: string): Promise<string | undefined> {
      const [p] = await db
        .select({ key: photos.previewKey })
        .from(photos)
        .where(and(eq(photos.id, photoId), eq(photos.userId, userId)));
      return p?.key;
    },

    /**
     * The photo's result, its job closed and `settle` (its smart albums) in one transaction. In two,
     * a status read between them said every photo analysed and nothing pending, so the organizer
     * refreshed its albums before the last photo's smart album existed and stopped polling; and a
     * process stopped between them left the photo analysed and out of its album for good. On the
     * job's last attempt (`lastAttempt`) a failing `settle` is left out ('left', see `settleIn`):
     * the result is kept rather than given up as 'uncategorized' for an album write.
     */
    async complete(
      job: ClaimedJob,
      outcome: AnalysisOutcome,
      durationMs: number,
      settle?: SettleInTransaction,
      lastAttempt = false,
    ): Promise<'settled' | 'left'> {
      return db.transaction(async (tx) => {
        await tx
          .update(photos)
          .set({
            analyzed: true,
            category: outcome.category,
            tags: outcome.tags,
            description: outcome.description,
            faceCount: outcome.faceCount,
            analysisError: null,
          })
          .where(and(eq(photos.id, job.photoId), eq(photos.userId, job.userId)));
        await tx
          .update(jobs)
          .set({ status: 'done', lockedUntil: null, durationMs, lastError: null, updatedAt: sql`now()` })
          .where(eq(jobs.id, job.id));
        return settleIn(tx, job, settle, lastAttempt);
      });
    },

    /**
     * Gives claimed jobs back to the queue, claimable at once and their attempt not counted (their
     * worker is stopping, not failing). A job whose lock ran out and was claimed again since
     * (its attempts moved on) is the new holder's and is left alone.
     */
    async release(claimed: ClaimedJob[]): Promise<void> {
      await Promise.all(
        claimed.map((job) =>
          db
            .update(jobs)
            .set({
              status: 'queued',
              attempts: sql`${jobs.attempts} - 1`,
              lockedUntil: null,
              runAfter: sql`now()`,
              updatedAt: sql`now()`,
            })
            .where(and(eq(jobs.id, job.id), eq(jobs.status, 'running'), eq(jobs.attempts, job.attempts))),
        ),
      );
    },

    /**
     * Retries later, or after the last attempt marks the photo analysed as uncategorized with the
     * error and the job failed, with `settle` in the same transaction (as in `complete`) unless it
     * fails: then without it ('gave-up, albums left'), so the job is marked failed all the same.
     */
    async fail(
      job: ClaimedJob,
      error: string,
      maxAttempts: number,
      retryDelayMs: number,
      settle?: SettleInTransaction,
    ): Promise<'retry' | 'gave-up' | 'gave-up, albums left'> {
      if (job.attempts < maxAttempts) {
        await db
          .update(jobs)
          .set({
            status: 'queued',
            lockedUntil: null,
            lastError: error,
            runAfter: sql`now() + (${retryDelayMs * job.attempts} * interval '1 millisecond')`,
            updatedAt: sql`now()`,
          })
          .where(eq(jobs.id, job.id));
        return 'retry';
      }
      return db.transaction(async (tx) => {
        await tx
          .update(photos)
          .set({
            analyzed: true,
            category: 'uncategorized',
            tags: [],
            description: null,
            faceCount: 0,
            analysisError: error,
          })
          .where(and(eq(photos.id, job.photoId), eq(photos.userId, job.userId)));
        await tx
          .update(jobs)
          .set({ status: 'failed', lockedUntil: null, lastError: error, updatedAt: sql`now()` })
          .where(eq(jobs.id, job.id));
        return (await settleIn(tx, job, settle, true)) === 'settled' ? 'gave-up' : 'gave-up, albums left';
      });
    },

    async status(userId: string): Promise<{ total: number; analyzed: number; pending: number }> {
      const [p] = await db
        .select({ total: count(), analyzed: sql<number>`count(*) filter (where ${photos.analyzed})::int` })
        .from(photos)
        .where(eq(photos.userId, userId));
      const [j] = await db
        .select({ n: count() })
        .from(jobs)
        .where(and(eq(jobs.userId, userId), eq(jobs.kind, ANALYZE_JOB), inArray(jobs.status, ['queued', 'running'])));
      return { total: Number(p?.total ?? 0), analyzed: Number(p?.analyzed ?? 0), pending: Number(j?.n ?? 0) };
    },
  };
}
export type AnalysisRepository = ReturnType<typeof createAnalysisRepository>;
