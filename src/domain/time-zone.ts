import { DAY_MS, isCalendarDay, type CalendarDay } from './calendar';

/**
 * The user's calendar day comes from an IANA time zone the server stores, not from an offset the
 * client sends with each call: an offset per call let one person claim several days in one hour.
 */
export const TIME_ZONE_MAX_LENGTH = 64;

/** A stored zone may change at most this often, so hopping zones cannot mint an extra day each time. */
export const TIME_ZONE_CHANGE_INTERVAL_MS = 7 * DAY_MS;

/**
 * On the day the zone changed, a new login day that overlaps the day already counted (rewardDayRange)
 * is still given once this much server time has passed since the last login: a traveller moved an
 * hour east (a new date there, whose day reaches back over the old one's) keeps the streak, and a
 * hop far east gains a login day no sooner than 20 h after the last.
 */
export const MIN_MS_BETWEEN_LOGIN_DAYS = 20 * 60 * 60 * 1000;

const FORMATTERS_MAX = 1_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hourCycle: 'h23',
    });
    // Only canonical names reach here, so the map stays small; the cap is a second fence.
    if (formatters.size >= FORMATTERS_MAX) formatters.clear();
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * The canonical spelling of an IANA zone ('europe/paris' -> 'Europe/Paris'), or null when Intl does
 * not know it. Used for validation, so every stored value is one Intl accepts.
 */
export function canonicalTimeZone(name: string): string | null {
  if (typeof name !== 'string' || name.length === 0 || name.length > TIME_ZONE_MAX_LENGTH) return null;
  if (!/^[A-Za-z0-9_+\-/:]+$/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** 'YYYY-MM-DD' of an instant in a zone; UTC when the user has none (or it is no longer valid). */
export function calendarDayInZone(date: Date, timeZone: string | null | undefined): CalendarDay {
  const utc = date.toISOString().slice(0, 10);
  if (!timeZone || timeZone === 'UTC') return utc;
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = formatterFor(timeZone).formatToParts(date);
  } catch {
    return utc;
  }
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const day = `${get('year').padStart(4, '0')}-${get('month')}-${get('day')}`;
  return isCalendarDay(day) ? day : utc;
}

const MINUTE_MS = 60_000;
/** Further than any instant of a local day is from its start or end (days last at most 25 h). */
const DAY_SEARCH_MINUTES = 27 * 60;

/**
 * The local day of `at` in a zone (as calendarDayInZone) and the instants it spans, [start, end):
 * what a daily limit counts rows by. A zone's day begins on a whole minute (not always at 00:00,
 * nor 24 h after the last one: DST), so each bound is found by bisecting minutes.
 */
export function dayRangeInZone(
  at: Date,
  timeZone: string | null | undefined,
): { day: CalendarDay; start: Date; end: Date } {
  const day = calendarDayInZone(at, timeZone);
  const minute = Math.floor(at.getTime() / MINUTE_MS);
  const dayAt = (m: number) => calendarDayInZone(new Date(m * MINUTE_MS), timeZone);
  /** The first minute in [lo, hi] whose local day has `reached` (days only move forward). */
  const firstMinute = (lo: number, hi: number, reached: (d: CalendarDay) => boolean) => {
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (reached(dayAt(mid))) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const start = firstMinute(minute - DAY_SEARCH_MINUTES, minute, (d) => d >= day);
  const end = firstMinute(minute + 1, minute + DAY_SEARCH_MINUTES, (d) => d > day);
  return { day, start: new Date(start * MINUTE_MS), end: new Date(end * MINUTE_MS) };
}

/**
 * The zone to store after a sign-in that sent `requested`: the first one is kept at once; a
 * different one only when the stored one is older than TIME_ZONE_CHANGE_INTERVAL_MS. Null: no change.
 */
export function timeZoneToStore(
  stored: { timeZone: string | null; setAt: Date | null },
  requested: string | null | undefined,
  now: Date,
): string | null {
  if (!requested || requested === stored.timeZone) return null;
  if (!stored.timeZone || !stored.setAt) return requested;
  return now.getTime() - stored.setAt.getTime() >= TIME_ZONE_CHANGE_INTERVAL_MS ? requested : null;
}

/** The stored zone, and the one it replaced with when, as the reward rules read them. */
export interface StoredTimeZone {
  timeZone: string | null;
  /** The zone before the last change (null: none, i.e. UTC). */
  previousTimeZone: string | null;
  /** When timeZone last changed; null if it never has. */
  setAt: Date | null;
}

/**
 * The day a daily reward rule counts by: the local day of `at` in the stored zone, widened back to
 * the start of the previous zone's day in which the zone changed when the two overlap. Moving the
 * zone ahead would otherwise start a new day at once (a user at 10:30 UTC moving to UTC+14 is
 * already in tomorrow), and whatever that day's rule allows a second time. Widened, the day can only
 * count more of what was already given, never less: moving zones never yields more than staying put.
 */
export function rewardDayRange(at: Date, zone: StoredTimeZone): { day: CalendarDay; start: Date; end: Date } {
  const range = dayRangeInZone(at, zone.timeZone);
  if (!zone.setAt || zone.setAt.getTime() > at.getTime()) return range;
  const before = dayRangeInZone(zone.setAt, zone.previousTimeZone);
  const overlaps = before.end.getTime() > range.start.getTime() && before.start.getTime() < range.end.getTime();
  return overlaps && before.start < range.start ? { ...range, start: before.start } : range;
}
