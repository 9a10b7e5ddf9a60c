import type { CreateActivityBody, CreateActivityResponse } from '@contract/activities';
import type { AdBreak } from '@contract/ad-breaks';
import { gamePoints, NO_GAME_POINTS } from '@domain/games/scoring';
import { adCompletionPoints } from '@domain/rewards';
import { apiRequest } from '../../lib/api';
import type { MiniGameOutcome } from './mini-game-dialog';

/**
 * The `POST /api/activities` body for a finished ad break.
 * The points and time saved are what the rules give; the server recomputes both anyway.
 */
export function adBreakActivity(app: string, adDuration: number, outcome: MiniGameOutcome | null): CreateActivityBody {
  const pointsEarned = !outcome
    ? adCompletionPoints(adDuration)
    : outcome.completed && outcome.gameType !== 'none'
      ? gamePoints(outcome.score)
      : NO_GAME_POINTS;
  return {
    app,
    adDuration,
    timeSaved: adDuration,
    pointsEarned,
    ...(outcome ? { gameData: outcome } : {}),
  };
}

/** Asks the server to start (and time) an ad break; its id is what the recording must name. */
export async function startAdBreak(app: string): Promise<AdBreak> {
  const res = await apiRequest('POST', '/api/ad-breaks', { app });
  return (await res.json()) as AdBreak;
}

/**
 * Records one ad break once its ad has run: the ad-break id is the Idempotency-Key, so a retried
 * request counts once.
 */
export async function recordAdBreak(body: CreateActivityBody, adBreakId: string): Promise<CreateActivityResponse> {
  const res = await apiRequest('POST', '/api/activities', body, { 'Idempotency-Key': adBreakId });
  return (await res.json()) as CreateActivityResponse;
}
