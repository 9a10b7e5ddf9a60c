import { sql, type SQL } from 'drizzle-orm';
import type { Db } from './client';

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/**
 * Serialises every transaction that adds or removes references to these content-addressed blobs
 * (photos, filtered versions, deletes, the orphan sweep), so a shared blob is never removed from
 * under a row that is about to reference it.
 */
export async function lockBlobKeys(tx: Tx, keys: string[]) {
  const statement = blobKeyLocks(keys);
  if (statement) await tx.execute(statement);
}

/** `lockBlobKeys`' statement, for a caller that sends it together with others; null for no keys. */
export function blobKeyLocks(keys: string[]): SQL | null {
  const sorted = [...new Set(keys)].sort();
  if (sorted.length === 0) return null;
  // One round trip; volatile functions in the select list run after the ORDER BY, so the locks
  // are always taken in the same order (no deadlock between two transactions).
  return sql`select pg_advisory_xact_lock(hashtextextended(k, 0)) from unnest(${sql.raw('ARRAY[')}${sql.join(
    sorted.map((k) => sql`${k}`),
    sql`, `,
  )}${sql.raw(']::text[]')}) as k order by k`;
}
