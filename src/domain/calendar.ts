/**
 * Calendar-day arithmetic shared by streaks and charts.
 *
 * Days are 'YYYY-MM-DD' strings in the user's local time. The user's zone is
 * described by `utcOffsetMinutes`: minutes to ADD to UTC to get local time,
 * i.e. the sign used in "UTC+02:00" (= 120) and "UTC-05:00" (= -300).
 * Note this is the NEGATION of JavaScript's Date#getTimezoneOffset(); a browser
 * should send `utcOffsetMinutesOf(new Date())`.
 */

const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** Real zones span UTC-12:00..UTC+14:00; ±14 h bounds a hostile or buggy client value. */
export const MAX_UTC_OFFSET_MINUTES = 840;

/** 'YYYY-MM-DD' */
export type CalendarDay = string;

/** Anything a Date can be built from; API payloads carry ISO strings, the DB returns Dates. */
export type DateInput = Date | string | number;

export function toDate(input: DateInput): Date {
  return input instanceof Date ? input : new Date(input);
}

/** Clamps to [-840, 840] whole minutes; non-numbers become 0 (UTC). */
export function clampUtcOffset(utcOffsetMinutes: number): number {
  if (!Number.isFinite(utcOffsetMinutes)) return 0;
  const whole = Math.round(utcOffsetMinutes);
  return Math.min(MAX_UTC_OFFSET_MINUTES, Math.max(-MAX_UTC_OFFSET_MINUTES, whole)) || 0;
}

/** The offset the browser is in, in this module's sign convention. */
export function utcOffsetMinutesOf(date: Date): number {
  return -date.getTimezoneOffset() || 0;
}

/** The local calendar day of an instant, for a zone `utcOffsetMinutes` east of UTC. */
export function calendarDay(date: DateInput, utcOffsetMinutes = 0): CalendarDay {
  const ms = toDate(date).getTime();
  if (Number.isNaN(ms)) throw new RangeError('calendarDay: invalid date');
  return new Date(ms + clampUtcOffset(utcOffsetMinutes) * MINUTE_MS).toISOString().slice(0, 10);
}

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real 'YYYY-MM-DD' date (rejects '2024-02-30'). */
export function isCalendarDay(value: string): value is CalendarDay {
  const m = DAY_PATTERN.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === value;
}

function dayNumber(day: CalendarDay): number {
  if (!isCalendarDay(day)) throw new RangeError(`Not a calendar day: ${day}`);
  return Date.parse(`${day}T00:00:00Z`) / DAY_MS;
}

/** Whole days from `from` to `to` (positive when `to` is later). */
export function daysBetween(from: CalendarDay, to: CalendarDay): number {
  return dayNumber(to) - dayNumber(from);
}

export function addDays(day: CalendarDay, days: number): CalendarDay {
  return new Date((dayNumber(day) + days) * DAY_MS).toISOString().slice(0, 10);
}
