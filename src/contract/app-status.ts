import { z } from 'zod';
import { utcOffsetMinutes } from './rewards';

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
  /** Activation reward added now (15 once per local day; 0 otherwise). */
  points: z.number(),
  message: z.string(),
});
export type ActivateResponse = z.infer<typeof activateResponse>;

export { HEARTBEAT_INTERVAL_MS } from './app-status-timing';
