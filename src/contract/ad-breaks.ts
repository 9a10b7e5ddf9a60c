import { z } from 'zod';

/**
 * `POST /api/ad-breaks {app}`: the server starts (and times) an ad break of one of the simulated
 * apps. Its `id` is the `Idempotency-Key` (or body `eventId`) of the `POST /api/activities` that
 * records it, accepted once, from `endsAt` (less a small clock leeway) until the record window closes.
 */
export const startAdBreakBody = z.object({
  app: z.string().trim().min(1).max(50),
});
export type StartAdBreakBody = z.infer<typeof startAdBreakBody>;

/** The 409's `code` for a recording sent before the server's end of the ad: it may be sent again. */
export const AD_STILL_PLAYING_CODE = 'ad_still_playing';

export const adBreak = z.object({
  id: z.string(),
  app: z.string(),
  durationSeconds: z.number(),
  /** ISO times by the server's clock. */
  startedAt: z.string(),
  endsAt: z.string(),
});
export type AdBreak = z.infer<typeof adBreak>;
