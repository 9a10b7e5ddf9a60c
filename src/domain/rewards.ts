/**
 * Points, login streaks, achievements and reward notification texts.
 * The server is the authority on points; it computes them with these rules
 * instead of trusting numbers posted by the client.
 */
import { daysBetween, isCalendarDay, type CalendarDay } from './calendar';

// Streak days are computed with calendar.ts; re-exported so reward code has one import.
export { calendarDay, clampUtcOffset, utcOffsetMinutesOf } from './calendar';

export const REWARD_TYPES = ['points', 'streak', 'achievement', 'upload', 'login', 'activation'] as const;
export type RewardType = (typeof REWARD_TYPES)[number];

export function isRewardType(value: string): value is RewardType {
  return (REWARD_TYPES as readonly string[]).includes(value);
}

/**
 * The fixed-amount rewards: login once per day, activation once per day, upload per distinct photo.
 * The others are computed: the streak bonus (streakBonus), ads (adCompletionPoints, skipReward),
 * game scores and each achievement's own points (ACHIEVEMENTS).
 */
export const REWARD_POINTS: Readonly<Record<'login' | 'activation' | 'upload', number>> = {
  login: 10,
  activation: 15,
  upload: 5,
};
/**
 * At most this many photos a day (of the user's stored zone) earn the upload reward: 500 points.
 * Only contents never rewarded before earn, but a script can make endless new images, upload and
 * delete them: the upload limits alone would let one account mint ~6,000 points in 15 minutes.
 * A person with a big camera roll rarely adds more in one day. Photos past it are still uploaded
 * and counted as uploaded (achievements), only without points, and never earn them later.
 */
export const UPLOAD_REWARD_PHOTOS_PER_DAY = 100;
/** The streak bonus per day of the current streak. */
export const STREAK_BONUS_PER_DAY = 5;

export interface Reward {
  type: RewardType;
  points: number;
  message: string;
}

/** Non-negative whole count; protects the ledger from NaN and negative input. */
function count(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/** Non-negative seconds (fractions kept: an ad can be 15.5 s). */
function seconds(n: number): number {
  return Number.isFinite(n) && n > 0 ? n : 0;
}

export function uploadReward(photoCount: number): number {
  return REWARD_POINTS.upload * count(photoCount);
}

export function streakBonus(streakDays: number): number {
  return STREAK_BONUS_PER_DAY * count(streakDays);
}

/** Points for watching an ad to the end: duration / 10 rounded down. */
export function adCompletionPoints(adDurationSeconds: number): number {
  return Math.floor(seconds(adDurationSeconds) / 10);
}

/** Points for skipping an ad: duration / 10 rounded UP (15 s -> 2). */
export function skipReward(adDurationSeconds: number): number {
  return Math.ceil(seconds(adDurationSeconds) / 10);
}

export function skipRewardMessage(points: number): string {
  return `Ad skipped! +${points} pts`;
}

// ---------------------------------------------------------------- achievements

export type AchievementId = 'first_steps' | 'photo_collector' | 'ad_skipper' | 'week_warrior' | 'point_master';

export interface AchievementProgress {
  photosUploaded: number;
  adsSkipped: number;
  currentStreak: number;
  totalPoints: number;
}

export interface Achievement {
  id: AchievementId;
  name: string;
  description: string;
  /** Which progress counter unlocks it, reached when the counter is >= threshold. */
  metric: keyof AchievementProgress;
  threshold: number;
  points: number;
}

export const ACHIEVEMENTS: readonly Achievement[] = [
  {
    id: 'first_steps',
    name: 'First Steps',
    description: 'Upload your first photo',
    metric: 'photosUploaded',
    threshold: 1,
    points: 25,
  },
  {
    id: 'photo_collector',
    name: 'Photo Collector',
    description: 'Upload 10 photos',
    metric: 'photosUploaded',
    threshold: 10,
    points: 50,
  },
  { id: 'ad_skipper', name: 'Ad Skipper', description: 'Skip 5 ads', metric: 'adsSkipped', threshold: 5, points: 30 },
  {
    id: 'week_warrior',
    name: 'Week Warrior',
    description: 'Log in 7 days in a row',
    metric: 'currentStreak',
    threshold: 7,
    points: 100,
  },
  {
    id: 'point_master',
    name: 'Point Master',
    description: 'Earn 500 points',
    metric: 'totalPoints',
    threshold: 500,
    points: 75,
  },
];

/**
 * Achievements whose threshold is reached and whose id is not yet in
 * `alreadyUnlocked`, in catalogue order. Awarding them adds points, which can
 * unlock Point Master: callers that care should call again with the new total.
 */
export function newlyUnlockedAchievements(
  progress: AchievementProgress,
  alreadyUnlocked: readonly string[],
): Achievement[] {
  const owned = new Set(alreadyUnlocked);
  return ACHIEVEMENTS.filter((a) => !owned.has(a.id) && progress[a.metric] >= a.threshold);
}

// ---------------------------------------------------------------- login streak

export interface LoginStreakState {
  /** Local calendar day of the previous login, or null if never. */
  lastLoginDay: CalendarDay | null;
  currentStreak: number;
}

export interface LoginStreakResult {
  currentStreak: number;
  /** True when this login is on a later day than the last one: award the login reward once per day on this. */
  isNewDay: boolean;
  /** 'Welcome!' on the first login ever; 'Welcome back! N day streak!' on a new day when the new streak is above 1. */
  message?: string;
}

/**
 * Next login streak for a login on `today` (local 'YYYY-MM-DD', see calendarDay).
 * Same day: unchanged, not a new day. The day after: +1. A gap or first login: 1.
 * A `today` earlier than the last login (clock moved back) is treated like the
 * same day, so changing the device clock cannot farm daily rewards.
 */
export function nextLoginStreak(state: LoginStreakState, today: CalendarDay): LoginStreakResult {
  if (!isCalendarDay(today)) throw new RangeError(`nextLoginStreak: bad day ${today}`);
  const previous = count(state.currentStreak);
  if (state.lastLoginDay === null || !isCalendarDay(state.lastLoginDay)) {
    return { currentStreak: 1, isNewDay: true, message: WELCOME_MESSAGE };
  }
  const gap = daysBetween(state.lastLoginDay, today);
  if (gap <= 0) return { currentStreak: Math.max(previous, 1), isNewDay: false };
  const currentStreak = gap === 1 ? previous + 1 : 1;
  return currentStreak > 1
    ? { currentStreak, isNewDay: true, message: welcomeBackStreakMessage(currentStreak) }
    : { currentStreak, isNewDay: true };
}

export function welcomeBackStreakMessage(streakDays: number): string {
  return `Welcome back! ${streakDays} day streak!`;
}

// ---------------------------------------------------------------- notification texts

export const STREAK_BONUS_MESSAGE = 'Streak bonus!';
export const ACHIEVEMENT_UNLOCKED_MESSAGE = 'Achievement unlocked!';
export const PHOTO_UPLOADED_MESSAGE = 'Photo uploaded successfully!';
export const WELCOME_BACK_MESSAGE = 'Welcome back!';
/** A first login is not a return: it is greeted without the 'back'. */
export const WELCOME_MESSAGE = 'Welcome!';
export const APP_ACTIVATED_MESSAGE = 'App activated!';
export const READY_TO_SAVE_TIME_MESSAGE = 'Ready to save time!';

export function pointsEarnedMessage(points: number): string {
  return `+${points} points earned!`;
}

/** '{N} photos uploaded!'; exactly 1 reads '1 photo uploaded!' (same singular rule as relative times). */
export function photosUploadedMessage(photoCount: number): string {
  return `${photoCount} ${photoCount === 1 ? 'photo' : 'photos'} uploaded!`;
}

/**
 * An upload's reward popup: the photos it paid for, or the achievement alone when it paid for none
 * (the server words one request's reward so; the client a whole selection's, added up).
 */
export function uploadRewardMessage(rewardedPhotos: number, newAchievements: number): string {
  if (rewardedPhotos === 0 && newAchievements > 0) return ACHIEVEMENT_UNLOCKED_MESSAGE;
  return rewardedPhotos === 1 ? PHOTO_UPLOADED_MESSAGE : photosUploadedMessage(rewardedPhotos);
}

export function streakBonusDaysMessage(streakDays: number): string {
  return `${streakDays} day streak bonus!`;
}

/** Local notifications keep only the latest 5; the toast shows 1 at a time. */
export const NOTIFICATIONS_KEPT = 5;
