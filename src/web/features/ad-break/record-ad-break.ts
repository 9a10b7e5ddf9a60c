import type { CreateActivityBody, CreateActivityResponse } from '@contract/activities';
import { gamePoints, NO_GAME_POINTS } from '@domain/games/scoring';
import { adCompletionPoints } from '@domain/rewards';
import { apiRequest } from '../../lib/api';
import type { MiniGameOutcome } from './mini-game-dialog';

/**
 * The `POST /api/activities` body for a finished ad break (spec section 3, Activity record).
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

/** Records one ad break; `eventId` (one per ad break) makes a retried request count once. */
export async function recordAdBreak(body: CreateActivityBody, eventId: string): Promise<CreateActivityResponse> {
  const res = await apiRequest('POST', '/api/activities', body, { 'Idempotency-Key': eventId });
  return (await res.json()) as CreateActivityResponse;
}
