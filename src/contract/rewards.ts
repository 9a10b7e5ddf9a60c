import { z } from 'zod';
import { REWARD_TYPES } from '@domain/rewards';

/**
 * Points economy shapes. The server decides every point: request bodies
 * may carry `points`, but it is ignored in favour of the rule in src/domain/rewards.ts.
 */

/** Minutes EAST of UTC (UTC+2 = 120); the server clamps it to ±14 h. See src/domain/calendar.ts. */
export const utcOffsetMinutes = z.coerce.number().finite().optional();

/** An optional client event id: the same id is recorded once (also accepted as header `Idempotency-Key`). */
export const eventId = z.string().trim().min(1).max(200).optional();

export const recordRewardBody = z.object({
  type: z.enum(REWARD_TYPES, { error: 'Unknown reward type' }),
  /** Ignored: the server computes the points. Accepted so the spec's payload validates. */
  points: z.number().optional(),
  message: z.string().max(200).optional(),
  utcOffsetMinutes,
  eventId,
});
export type RecordRewardBody = z.infer<typeof recordRewardBody>;

export const achievementView = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  points: z.number(),
});
export type AchievementView = z.infer<typeof achievementView>;

export const recordRewardResponse = z.object({
  type: z.enum(REWARD_TYPES),
  /** Points added by this call (0 when already awarded, e.g. a second login the same day). */
  points: z.number(),
  awarded: z.boolean(),
  message: z.string(),
  currentStreak: z.number(),
  /** The user's local calendar day the award was counted for ('YYYY-MM-DD'). */
  day: z.string(),
  newAchievements: z.array(achievementView),
});
export type RecordRewardResponse = z.infer<typeof recordRewardResponse>;

export const rewardsSummary = z.object({
  lastLoginDate: z.string().nullable(),
  currentStreak: z.number(),
  photosUploaded: z.number(),
  adsSkipped: z.number(),
  totalPoints: z.number(),
  achievements: z.array(z.string()),
});
export type RewardsSummary = z.infer<typeof rewardsSummary>;

export const statsQuery = z.object({ utcOffsetMinutes });

export const stats = z.object({
  totalPoints: z.number(),
  adsSkipped: z.number(),
  /** Seconds. */
  timeSaved: z.number(),
  /** Points per local day for the last 7 days, oldest first (beyond the spec: the insights chart). */
  pointsByDay: z.array(z.object({ date: z.string(), points: z.number() })),
});
export type Stats = z.infer<typeof stats>;
