import { and, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { sessions, users } from '../db/schema';

/**
 * The one query every signed-in request may run: the user behind a session id, while it lasts.
 * Prepared once (node-postgres: a named statement, parsed once per connection; PGlite: the SQL text
 * is still built only once): drizzle's query building was a visible share of per-request CPU.
 */
export function createSessionLookup(db: Db) {
  const findSession = db
    .select({
      id: users.id,
      email: users.email,
      firstName: users.firstName,
      lastName: users.lastName,
      createdAt: users.createdAt,
      expiresAt: sessions.expiresAt,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, sql.placeholder('id')), gt(sessions.expiresAt, sql.placeholder('now'))))
    .limit(1)
    .prepare('session_user');
  return async (id: string, now: Date) => {
    const [row] = await findSession.execute({ id, now: now.toISOString() });
    return row;
  };
}
