import { SIMULATED_ADS } from '@domain/games/scoring';
import { AD_STILL_PLAYING_CODE, type AdBreak } from '@contract/ad-breaks';
import { AppError, badRequest, conflict, notFound } from '../../http/errors';
import type { AdBreakRow, AdBreaksRepository } from './ad-breaks.repository';

/**
 * An activity may be recorded this long before the server's end of its ad: the client counts down
 * from when it received the answer (after `startedAt`), so only clock differences between server
 * processes and timer jitter need covering.
 */
export const AD_BREAK_CLOCK_LEEWAY_MS = 2_000;
/** After its end an ad break can be recorded for this long (a game still in play, retries, a slow network). */
export const AD_BREAK_RECORD_WINDOW_MS = 10 * 60_000;
const LONGEST_AD_MS = Math.max(...SIMULATED_ADS.map((a) => a.durationSeconds)) * 1000;
/** Unrecorded breaks older than this can no longer be recorded; starting a new one deletes them. */
const FORGET_AFTER_MS = LONGEST_AD_MS + AD_BREAK_RECORD_WINDOW_MS + 60_000;

export const UNKNOWN_AD_BREAK_MESSAGE = 'Unknown ad break. Start one with POST /api/ad-breaks and send its id.';
export const MISSING_AD_BREAK_MESSAGE =
  'An ad-break id is required: start the ad break with POST /api/ad-breaks and send its id as Idempotency-Key.';
export const SUPERSEDED_AD_BREAK_MESSAGE = 'This ad break was replaced by a newer one and cannot be recorded.';
export const EXPIRED_AD_BREAK_MESSAGE = 'This ad break ended more than 10 minutes ago and can no longer be recorded.';

export function adBreakEndsAt(row: AdBreakRow): Date {
  return new Date(row.startedAt.getTime() + row.durationSeconds * 1000);
}

export function toAdBreak(row: AdBreakRow): AdBreak {
  return {
    id: row.id,
    app: row.app,
    durationSeconds: row.durationSeconds,
    startedAt: row.startedAt.toISOString(),
    endsAt: adBreakEndsAt(row).toISOString(),
  };
}

export interface AdBreaksServiceDeps {
  repo: AdBreaksRepository;
  now: () => Date;
}

/**
 * Ad breaks the server witnessed. A user has at most one running: starting another supersedes the
 * unrecorded one (a reloaded page or a second device simply starts over; the old break can never be
 * recorded, so parallel breaks cannot multiply the rate).
 */
export function createAdBreaksService({ repo, now }: AdBreaksServiceDeps) {
  return {
    async start(userId: string, app: string): Promise<AdBreak> {
      const ad = SIMULATED_ADS.find((a) => a.app === app);
      if (!ad) throw badRequest(`Unknown app: ${app}`);
      const startedAt = now();
      const row = await repo.start({
        userId,
        app: ad.app,
        durationSeconds: ad.durationSeconds,
        startedAt,
        forgetBefore: new Date(startedAt.getTime() - FORGET_AFTER_MS),
      });
      return toAdBreak(row);
    },

    /**
     * The user's ad break `id` for an activity of `app`, if it may be recorded now; otherwise the
     * 4xx that says why. A recorded break is returned as is (the caller answers the replay).
     */
    async recordable(userId: string, id: string, app: string): Promise<AdBreakRow> {
      const row = await repo.find(userId, id);
      if (!row) throw notFound(UNKNOWN_AD_BREAK_MESSAGE);
      // Before the replay's return: a break claimed by a racing request whose activity is not
      // written yet was answered as recorded, and the other app's longer ad then recorded for it.
      if (row.app !== app)
        throw badRequest(`This ad break is ${/^[aeiou]/i.test(row.app) ? 'an' : 'a'} ${row.app} ad, not ${app}.`);
      if (row.recordedAt) return row;
      if (row.supersededAt) throw conflict(SUPERSEDED_AD_BREAK_MESSAGE);
      const at = now().getTime();
      const endsAt = adBreakEndsAt(row).getTime();
      if (at < endsAt - AD_BREAK_CLOCK_LEEWAY_MS) {
        const left = Math.ceil((endsAt - at) / 1000);
        throw new AppError(409, `The ad is still playing: ${left} s left.`, AD_STILL_PLAYING_CODE);
      }
      if (at > endsAt + AD_BREAK_RECORD_WINDOW_MS) throw conflict(EXPIRED_AD_BREAK_MESSAGE);
      return row;
    },

    /** False when a newer break superseded it in the meantime. */
    claim(userId: string, id: string): Promise<boolean> {
      return repo.claim(userId, id, now());
    },
  };
}
export type AdBreaksService = ReturnType<typeof createAdBreaksService>;
