import { z } from 'zod';
import { GAME_TYPES } from '@domain/games/scoring';
import { achievementView, eventId } from './rewards';

/**
 * `POST /api/activities {app, adDuration, timeSaved, pointsEarned, gameData?}`.
 * `timeSaved` and `pointsEarned` are accepted but recomputed by the server.
 */
export const gameData = z.object({
  gameType: z.enum(GAME_TYPES),
  score: z.number(),
  completed: z.boolean(),
});

export const createActivityBody = z.object({
  app: z.string().trim().min(1).max(50),
  adDuration: z.number().finite(),
  timeSaved: z.number().optional(),
  pointsEarned: z.number().optional(),
  gameData: gameData.optional(),
  eventId,
});
export type CreateActivityBody = z.infer<typeof createActivityBody>;

export const activity = z.object({
  id: z.string(),
  app: z.string(),
  adDuration: z.number(),
  pointsEarned: z.number(),
  /** Seconds. */
  timeSaved: z.number(),
  gameType: z.string().nullable(),
  gameScore: z.number().nullable(),
  createdAt: z.string(),
});
export type Activity = z.infer<typeof activity>;

export const activitiesResponse = z.array(activity);

export const createActivityResponse = z.object({
  activity,
  /** False when the event id was already recorded: nothing was added. */
  recorded: z.boolean(),
  /** Skip reward (duration / 10 rounded up) granted with the activity; 0 on a replay. */
  skipReward: z.number(),
  /** Activity points + skip reward + achievement points added by this call. */
  pointsAdded: z.number(),
  message: z.string(),
  newAchievements: z.array(achievementView),
});
export type CreateActivityResponse = z.infer<typeof createActivityResponse>;
