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

export const adBreak = z.object({
  id: z.string(),
  app: z.string(),
  durationSeconds: z.number(),
  /** ISO times by the server's clock. */
  startedAt: z.string(),
  endsAt: z.string(),
});
export type AdBreak = z.infer<typeof adBreak>;
