import { eq, sql } from 'drizzle-orm';
import type { Db } from './client';
import type { Tx } from './locks';
import { dataPasses } from './schema';

/** Where a due pass starts: the `wanted` it answers, and the key it resumes after (null: the first). */
export interface DuePass {
  wanted: number;
  resumeAfter: string | null;
}

/**
 * Passes over every row that a database needs once (`data_passes`), not at every start. Run
 * behind `Database.runAlone`, so one process at a time records a pass's progress.
 */
export function createPasses(db: Db) {
  return {
    /** The pass, if due: where to start (a pass cut short for the same `wanted` goes on). Null: done. */
    async due(name: string): Promise<DuePass | null> {
      await db.insert(dataPasses).values({ name }).onConflictDoNothing();
      const [row] = await db.select().from(dataPasses).where(eq(dataPasses.name, name));
      if (!row || (row.done !== null && row.done >= row.wanted)) return null;
      return { wanted: row.wanted, resumeAfter: row.resumeFor === row.wanted ? row.resumeAfter : null };
    },
    /** The pass for `wanted` has come as far as `after` (a shutdown may cut it short there). */
    async progress(name: string, wanted: number, after: string): Promise<void> {
      await db.update(dataPasses).set({ resumeFor: wanted, resumeAfter: after }).where(eq(dataPasses.name, name));
    },
    /**
     * The pass for `wanted` went over every row. A write that raised `wanted` meanwhile (its rows
     * possibly behind where the pass was) keeps it due.
     */
    async done(name: string, wanted: number): Promise<void> {
      await db
        .update(dataPasses)
        .set({ done: sql`greatest(coalesce(${dataPasses.done}, 0), ${wanted})`, resumeFor: null, resumeAfter: null })
        .where(eq(dataPasses.name, name));
    },
  };
}
export type Passes = ReturnType<typeof createPasses>;

/**
 * In the transaction of a write that leaves rows out of step for the pass (an analysis whose
 * album write failed on its last attempt): the pass is due again, from the start, at the next start.
 */
export async function wantPassAgain(tx: Tx, name: string): Promise<void> {
  await tx
    .insert(dataPasses)
    .values({ name, wanted: 2 })
    .onConflictDoUpdate({ target: dataPasses.name, set: { wanted: sql`${dataPasses.wanted} + 1` } });
}
