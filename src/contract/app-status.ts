import { z } from 'zod';
import { achievementView, utcOffsetMinutes } from './rewards';

/** App status. Dates are ISO strings or null. */
export const appStatus = z.object({
  isActive: z.boolean(),
  isMonitoring: z.boolean(),
  lastActivity: z.string().nullable(),
  activeSince: z.string().nullable(),
});
export type AppStatus = z.infer<typeof appStatus>;

export const activateBody = z.object({ utcOffsetMinutes }).nullish();

export const activateResponse = z.object({
  status: appStatus,
  /** Points added now: the activation reward (15 once per local day; 0 otherwise) and newAchievements'. */
  points: z.number(),
  message: z.string(),
  /** Achievements the activation unlocked (their points are in `points`). */
  newAchievements: z.array(achievementView),
});
export type ActivateResponse = z.infer<typeof activateResponse>;

export { HEARTBEAT_INTERVAL_MS } from './app-status-timing';
