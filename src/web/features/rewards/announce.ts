import type { AchievementView, RecordRewardResponse } from '@contract/rewards';
import {
  ACHIEVEMENT_UNLOCKED_MESSAGE,
  APP_ACTIVATED_MESSAGE,
  pointsEarnedMessage,
  streakBonusDaysMessage,
  WELCOME_BACK_MESSAGE,
  WELCOME_MESSAGE,
  type RewardType,
} from '@domain/rewards';
import { notify, showReward } from './notifications-store';

/** Popup + notifications for newly unlocked achievements (each 'Achievement unlocked!'). */
export function announceAchievements(list: readonly AchievementView[]) {
  for (const a of list) {
    notify('achievement', `${ACHIEVEMENT_UNLOCKED_MESSAGE} ${a.name}`);
    showReward({ type: 'achievement', points: a.points, message: `${ACHIEVEMENT_UNLOCKED_MESSAGE} ${a.name}` });
  }
}

/**
 * Turns a server answer into the spec's popup and notification texts. Nothing shows when the
 * server added no points (e.g. the second login of the day).
 */
export function announceReward(
  r: Pick<RecordRewardResponse, 'type' | 'points' | 'message' | 'currentStreak' | 'newAchievements'>,
) {
  const achievementPoints = r.newAchievements.reduce((s, a) => s + a.points, 0);
  const own = r.points - achievementPoints;
  if (own > 0) {
    showReward({ type: r.type, points: own, message: r.message });
    notify(r.type, notificationText(r.type, own, r.message));
    if (r.type === 'login' && r.currentStreak > 1) notify('streak', streakBonusDaysMessage(r.currentStreak));
  }
  announceAchievements(r.newAchievements);
}

function notificationText(type: RewardType, points: number, message: string): string {
  if (type === 'login') return message === WELCOME_MESSAGE ? WELCOME_MESSAGE : WELCOME_BACK_MESSAGE;
  if (type === 'activation') return APP_ACTIVATED_MESSAGE;
  return pointsEarnedMessage(points);
}

/** For the ad-break overlay: show 'Ad skipped! +N pts' after POST /api/activities. */
export function announceActivity(r: {
  recorded: boolean;
  skipReward: number;
  pointsAdded: number;
  message: string;
  newAchievements: readonly AchievementView[];
}) {
  if (!r.recorded) return;
  const achievementPoints = r.newAchievements.reduce((s, a) => s + a.points, 0);
  showReward({ type: 'points', points: r.pointsAdded - achievementPoints, message: r.message });
  notify('points', pointsEarnedMessage(r.pointsAdded - achievementPoints));
  announceAchievements(r.newAchievements);
}
