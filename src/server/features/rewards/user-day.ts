import { eq } from 'drizzle-orm';
import { calendarDayInZone } from '@domain/time-zone';
import type { CalendarDay } from '@domain/calendar';
import type { Db } from '../../db/client.js';
import { users } from '../../db/schema.js';

/**
 * The user's calendar day at `at`, in the zone stored on the account (UTC without one). Offsets the
 * client sends are never used for this: they let one person claim several days in an hour.
 * `lock` holds the user's row until the transaction ends, so two logins decide one after the other.
 */
export async function userDay(tx: Db, userId: string, at: Date, opts: { lock?: boolean } = {}): Promise<CalendarDay> {
  const query = tx.select({ timeZone: users.timeZone }).from(users).where(eq(users.id, userId)).limit(1);
  const [row] = opts.lock ? await query.for('update') : await query;
  return calendarDayInZone(at, row?.timeZone ?? null);
}
