/**
 * Dashboard numbers ('Member for N days', Avg/Day, Your Insights, the weekly
 * chart). Pure: `now` and the user's zone are passed in.
 */
import { addDays, calendarDay, DAY_MS, toDate, type CalendarDay, type DateInput } from './calendar';

/** 'Ad Skipper Pro!' shows when ads skipped is ABOVE this. */
export const AD_SKIPPER_PRO_THRESHOLD = 10;
/** Weekly Progress shows only when membership is MORE than this many days. */
export const WEEKLY_PROGRESS_MIN_DAYS = 7;
export const RECENT_PHOTOS_LIMIT = 4;
export const RECENT_ACTIVITIES_LIMIT = 3;

/** Whole days since account creation (floored, never negative). */
export function memberDays(createdAt: DateInput, now: Date): number {
  const ms = now.getTime() - toDate(createdAt).getTime();
  return Number.isFinite(ms) && ms > 0 ? Math.floor(ms / DAY_MS) : 0;
}

/** Avg/Day: total points / member days, rounded; 0 on day zero (no division by zero). */
export function avgPerDay(totalPoints: number, days: number): number {
  return days > 0 ? Math.round(totalPoints / days) : 0;
}

/** Efficiency Score percent: ads skipped / photos x 100, rounded; 0 without photos. May exceed 100. */
export function efficiencyScore(adsSkipped: number, photoCount: number): number {
  return photoCount > 0 ? Math.round((adsSkipped / photoCount) * 100) : 0;
}

/** Weekly Progress points (avg/day x 7, rounded), or null while membership is 7 days or less (hide the card). */
export function weeklyProgress(averagePerDay: number, days: number): number | null {
  return days > WEEKLY_PROGRESS_MIN_DAYS ? Math.round(averagePerDay * 7) : null;
}

export function isAdSkipperPro(adsSkipped: number): boolean {
  return adsSkipped > AD_SKIPPER_PRO_THRESHOLD;
}

/**
 * Photos Organized: photos in an album or with a real category. 'uncategorized'
 * is the analyser's default bucket, so it does not count as organised.
 */
export function photosOrganized(
  photos: readonly { albumId?: string | number | null; category?: string | null }[],
): number {
  return photos.filter(
    (p) => (p.albumId !== null && p.albumId !== undefined) || (!!p.category && p.category !== 'uncategorized'),
  ).length;
}

export interface PointsEntry {
  points: number;
  createdAt: DateInput;
}

export interface DailyPoints {
  date: CalendarDay;
  points: number;
}

/**
 * Points per local calendar day for the last `days` days ending today, oldest
 * first, zero-filled, for a bar chart. Entries outside the window or with bad
 * dates are ignored. `utcOffsetMinutes` follows calendar.ts (UTC+2 = 120).
 */
export function pointsPerDay(
  entries: readonly PointsEntry[],
  now: Date,
  days = 7,
  utcOffsetMinutes = 0,
): DailyPoints[] {
  const count = Math.max(0, Math.floor(days));
  if (count === 0) return [];
  const today = calendarDay(now, utcOffsetMinutes);
  const series: DailyPoints[] = [];
  for (let i = count - 1; i >= 0; i--) series.push({ date: addDays(today, -i), points: 0 });
  const byDay = new Map(series.map((d) => [d.date, d]));
  for (const entry of entries) {
    const time = toDate(entry.createdAt).getTime();
    if (Number.isNaN(time) || !Number.isFinite(entry.points)) continue;
    const bucket = byDay.get(calendarDay(time, utcOffsetMinutes));
    if (bucket) bucket.points += entry.points;
  }
  return series;
}

/**
 * As `pointsPerDay`, from points already summed per local day (the server sums them in the user's
 * zone, whose offset changes with daylight saving time): the last `days` days ending `today`.
 */
export function pointsOfLastDays(summed: readonly DailyPoints[], today: CalendarDay, days = 7): DailyPoints[] {
  const count = Math.max(0, Math.floor(days));
  const series: DailyPoints[] = [];
  for (let i = count - 1; i >= 0; i--) series.push({ date: addDays(today, -i), points: 0 });
  const byDay = new Map(series.map((d) => [d.date, d]));
  for (const { date, points } of summed) {
    const bucket = byDay.get(date);
    if (bucket && Number.isFinite(points)) bucket.points += points;
  }
  return series;
}
