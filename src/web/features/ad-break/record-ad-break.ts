import type { CreateActivityBody, CreateActivityResponse } from '@contract/activities';
import type { AdBreak } from '@contract/ad-breaks';
import { gamePoints, NO_GAME_POINTS } from '@domain/games/scoring';
import { adCompletionPoints } from '@domain/rewards';
import { apiRequest } from '../../lib/api';
import type { MiniGameOutcome } from './mini-game-dialog';

/** Points a mini-game outcome is worth: a finished game's score / 10, a skipped or unfinished one 1. */
export function outcomePoints(outcome: MiniGameOutcome): number {
  return outcome.completed && outcome.gameType !== 'none' ? gamePoints(outcome.score) : NO_GAME_POINTS;
}

/**
 * The outcome an ad break records when several games were played in it: the one worth the most (a
 * finished game on a tie), so the points a result view promised are never replaced by a later,
 * poorer game or a skip.
 */
export function betterOutcome(kept: MiniGameOutcome | null, next: MiniGameOutcome): MiniGameOutcome {
  if (!kept) return next;
  const [a, b] = [outcomePoints(kept), outcomePoints(next)];
  if (a !== b) return b > a ? next : kept;
  return kept.completed && !next.completed ? kept : next;
}

/**
 * The `POST /api/activities` body for a finished ad break.
 * The points and time saved are what the rules give; the server recomputes both anyway.
 */
export function adBreakActivity(app: string, adDuration: number, outcome: MiniGameOutcome | null): CreateActivityBody {
  const pointsEarned = outcome ? outcomePoints(outcome) : adCompletionPoints(adDuration);
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

/** How long the finished ad's overlay waits for its recording's answer before it gives up. */
export const RECORD_WAIT_MS = 20_000;

/**
 * Records one ad break once its ad has run: the ad-break id is the Idempotency-Key, so a retried
 * request counts once. Its answer is waited for at most RECORD_WAIT_MS: the overlay, a modal layer
 * with no way out at 0:00, stays until it comes, and a request on a connection that went dead
 * without the browser noticing (a phone between networks) may hang for minutes.
 */
export async function recordAdBreak(body: CreateActivityBody, adBreakId: string): Promise<CreateActivityResponse> {
  const res = await apiRequest(
    'POST',
    '/api/activities',
    body,
    { 'Idempotency-Key': adBreakId },
    { waitMs: RECORD_WAIT_MS },
  );
  return (await res.json()) as CreateActivityResponse;
}
