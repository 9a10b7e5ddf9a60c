import {
  ACHIEVEMENT_UNLOCKED_MESSAGE,
  clampUtcOffset,
  REWARD_POINTS,
  nextLoginStreak,
  PHOTO_UPLOADED_MESSAGE,
  pointsEarnedMessage,
  READY_TO_SAVE_TIME_MESSAGE,
  streakBonus,
  streakBonusDaysMessage,
  uploadReward,
  uploadRewardMessage,
  UPLOAD_REWARD_PHOTOS_PER_DAY,
  WELCOME_BACK_MESSAGE,
  type Achievement,
  type RewardType,
} from '@domain/rewards';
import { pointsOfLastDays, pointsPerDay } from '@domain/insights';
import { DAY_MS } from '@domain/calendar';
import { calendarDayInZone, canonicalTimeZone, MIN_MS_BETWEEN_LOGIN_DAYS } from '@domain/time-zone';
import type { UploadReward } from '@contract/photos';
import type { AchievementView, RecordRewardResponse, RewardsSummary, Stats } from '@contract/rewards';
import { LOGIN_SOURCE, streakFromDays, type Ledger } from './ledger';

export const toAchievementView = (a: Achievement): AchievementView => ({
  id: a.id,
  name: a.name,
  description: a.description,
  points: a.points,
});

export interface RewardsServiceDeps {
  ledger: Ledger;
  now?: () => Date;
}

/**
 * Reward rules on top of the ledger. The client names a reward type; the server decides whether it
 * is due and how many points it is worth (src/domain/rewards.ts). Posted `points` are ignored.
 */
export function createRewardsService({ ledger, now = () => new Date() }: RewardsServiceDeps) {
  const today = (userId: string) => ledger.userDay(userId, now());

  async function streakNow(userId: string) {
    return streakFromDays((await ledger.loginDays(userId)).days).currentStreak;
  }

  /**
   * Login reward once per day of the user's stored zone, plus the streak bonus (5 x days) on a new
   * day with a streak above 1. A login at 23:59:59 and another at 00:00:01 are two days, as the spec
   * has it. On the day the zone changed the day is the one the daily rules count by (rewardDayRange):
   * moved ahead (already tomorrow there), a login of the old zone's day counts for the new date too,
   * until MIN_MS_BETWEEN_LOGIN_DAYS have passed since it. A 20 h wait between any two login days,
   * the rule before, also broke the streak of a user who came in one evening and the next morning.
   */
  async function recordLogin(userId: string): Promise<RecordRewardResponse> {
    const at = now();
    const result = await ledger.transaction(async (tx) => {
      const range = await tx.rewardDay(userId, at, { lock: true });
      const day = range.day;
      const { days, lastLoginAt } = await tx.loginDays(userId);
      const next = nextLoginStreak(streakFromDays(days), day);
      const tooSoon = lastLoginAt !== null && at.getTime() - lastLoginAt.getTime() < MIN_MS_BETWEEN_LOGIN_DAYS;
      const countedAlready =
        next.isNewDay && tooSoon && (await tx.givenBetween(userId, LOGIN_SOURCE, range.start, range.end));
      let added = 0;
      let message = WELCOME_BACK_MESSAGE;
      if (next.isNewDay && !countedAlready) {
        message = next.message ?? WELCOME_BACK_MESSAGE;
        const entries = [
          {
            source: LOGIN_SOURCE,
            sourceEventId: `login:${day}`,
            points: REWARD_POINTS.login,
            message,
            createdAt: at,
          },
        ];
        if (next.currentStreak > 1) {
          entries.push({
            source: 'streak',
            sourceEventId: `streak:${day}`,
            points: streakBonus(next.currentStreak),
            message: streakBonusDaysMessage(next.currentStreak),
            createdAt: at,
          });
        }
        added = (await tx.addEntries(userId, entries)).reduce((s, e) => s + e.points, 0);
      }
      const newAchievements = await tx.unlockAchievements(userId);
      const currentStreak = streakFromDays((await tx.loginDays(userId)).days).currentStreak;
      return { day, added, message, newAchievements, currentStreak };
    });
    return response('login', result.day, result.added, result.message, result.currentStreak, result.newAchievements);
  }

  /**
   * Activation reward (15) once per day of the user's stored zone, counted by rewardDayRange: on the
   * day the zone changed, from the start of the old zone's day, so moving the zone ahead (already
   * tomorrow there) does not pay it twice. Decided under the user's row lock, so racing calls too.
   * Its message is the reward popup's 'Ready to save time!'; the notification beside it says 'App
   * activated!' (the client words notifications by type), so the two lines no longer repeat each other.
   */
  async function recordActivation(userId: string): Promise<RecordRewardResponse> {
    const at = now();
    const { day, added, newAchievements } = await ledger.transaction(async (tx) => {
      const range = await tx.rewardDay(userId, at, { lock: true });
      const given = await tx.givenBetween(userId, 'activation', range.start, range.end);
      const added = given
        ? []
        : await tx.addEntries(userId, [
            {
              source: 'activation',
              sourceEventId: `activation:${range.day}`,
              points: REWARD_POINTS.activation,
              message: READY_TO_SAVE_TIME_MESSAGE,
              createdAt: at,
            },
          ]);
      return { day: range.day, added, newAchievements: await tx.unlockAchievements(userId) };
    });
    const points = sumPoints(added);
    return response('activation', day, points, READY_TO_SAVE_TIME_MESSAGE, await streakNow(userId), newAchievements);
  }

  /**
   * Upload reward: 5 points per distinct photo content, once per user for ever (`upload:<sha256>`;
   * the ledger's unique event id makes a re-upload, even after a delete or in a racing request,
   * add nothing), for at most UPLOAD_REWARD_PHOTOS_PER_DAY photos a day of the user's stored zone
   * (the ledger counts them under a per-user lock). Photos past it are recorded with 0 points:
   * they count as uploaded (achievements) but never earn. Called by the photos feature's
   * `onPhotosUploaded` hook after the photos are stored, never by the client. The answer counts
   * only the photos credited now (no points: the photos feature answers no reward).
   */
  async function recordUpload(userId: string, contentHashes: readonly string[]): Promise<UploadReward> {
    const at = now();
    const entries = [...new Set(contentHashes)].map((hash) => ({
      source: 'upload',
      sourceEventId: `upload:${hash}`,
      points: REWARD_POINTS.upload,
      message: PHOTO_UPLOADED_MESSAGE,
      createdAt: at,
    }));
    const { added, newAchievements } = await ledger.awardInOne(userId, entries, {
      perDay: UPLOAD_REWARD_PHOTOS_PER_DAY,
      at,
    });
    const rewardedPhotos = added.filter((e) => e.points > 0).length;
    return {
      points: uploadReward(rewardedPhotos) + newAchievements.reduce((s, a) => s + a.points, 0),
      rewardedPhotos,
      message: uploadRewardMessage(rewardedPhotos, newAchievements.length),
      newAchievements: newAchievements.map(toAchievementView),
    };
  }

  /**
   * `POST /api/rewards/record`. login and activation are once per day of the user's stored zone;
   * streak re-checks the day's streak bonus (same event id as the login's, so never twice);
   * achievement unlocks whatever is due. upload and points have no event the server can verify from
   * this call (uploads are rewarded by the upload itself, ad rewards by POST /api/activities), so
   * they add 0.
   */
  async function record(userId: string, type: RewardType): Promise<RecordRewardResponse> {
    switch (type) {
      case 'login':
        return recordLogin(userId);
      case 'activation':
        return recordActivation(userId);
      case 'streak': {
        const day = await today(userId);
        const { days } = await ledger.loginDays(userId);
        const streak = streakFromDays(days).currentStreak;
        // The current streak is the run ending at the newest login day: only that day's bonus is
        // this streak's. After a move west `day` can be an earlier login day, whose bonus (never
        // written: a streak's first day has none) this request paid with today's streak.
        const loggedInToday = days.at(-1) === day;
        const entries =
          loggedInToday && streak > 1
            ? [
                {
                  source: 'streak',
                  sourceEventId: `streak:${day}`,
                  points: streakBonus(streak),
                  message: streakBonusDaysMessage(streak),
                },
              ]
            : [];
        const { added, newAchievements } = await ledger.award(userId, entries);
        return response('streak', day, sumPoints(added), streakBonusDaysMessage(streak), streak, newAchievements);
      }
      case 'achievement': {
        const day = await today(userId);
        const { newAchievements } = await ledger.award(userId, []);
        return response('achievement', day, 0, ACHIEVEMENT_UNLOCKED_MESSAGE, await streakNow(userId), newAchievements);
      }
      case 'upload':
      case 'points': {
        const day = await today(userId);
        const { newAchievements } = await ledger.award(userId, []);
        return response(type, day, 0, pointsEarnedMessage(0), await streakNow(userId), newAchievements);
      }
    }
  }

  async function summary(userId: string): Promise<RewardsSummary> {
    const snap = await ledger.snapshot(userId);
    return {
      lastLoginDate: snap.lastLoginAt ? snap.lastLoginAt.toISOString() : null,
      currentStreak: streakFromDays(snap.loginDays).currentStreak,
      photosUploaded: snap.photosUploaded,
      adsSkipped: snap.adsSkipped,
      totalPoints: snap.totalPoints,
      achievements: snap.unlocked,
    };
  }

  /**
   * The dashboard's figures and its 7-day chart, its days those of the browser's zone (the display
   * cookie) when it has one the database knows; else of the fixed offset the client sent.
   */
  async function stats(userId: string, utcOffsetMinutes?: number, displayZone?: string): Promise<Stats> {
    const at = now();
    const since = new Date(at.getTime() - 8 * DAY_MS);
    const zone = displayZone ? canonicalTimeZone(displayZone) : null;
    const offset = clampUtcOffset(utcOffsetMinutes ?? 0);
    const [snap, zoneDays, offsetDays] = await Promise.all([
      ledger.snapshot(userId),
      zone ? ledger.pointsByZoneDaySince(userId, since, zone) : null,
      zone ? null : ledger.pointsByDaySince(userId, since, offset),
    ]);
    const figures = { totalPoints: snap.totalPoints, adsSkipped: snap.adsSkipped, timeSaved: snap.timeSaved };
    if (zone && zoneDays) return { ...figures, pointsByDay: pointsOfLastDays(zoneDays, calendarDayInZone(at, zone)) };
    const days = offsetDays ?? (await ledger.pointsByDaySince(userId, since, offset));
    return { ...figures, pointsByDay: pointsPerDay(days, at, 7, offset) };
  }

  return { record, recordLogin, recordActivation, recordUpload, summary, stats };
}
export type RewardsService = ReturnType<typeof createRewardsService>;

const sumPoints = (entries: { points: number }[]) => entries.reduce((s, e) => s + e.points, 0);

function response(
  type: RewardType,
  day: string,
  points: number,
  message: string,
  currentStreak: number,
  newAchievements: Achievement[],
): RecordRewardResponse {
  const achievementPoints = newAchievements.reduce((s, a) => s + a.points, 0);
  return {
    type,
    points: points + achievementPoints,
    awarded: points + achievementPoints > 0,
    message,
    currentStreak,
    day,
    newAchievements: newAchievements.map(toAchievementView),
  };
}
