/** What every mini-game reports when its phase becomes 'complete'. */
export interface GameOutcome {
  score: number;
  /** True when the time limit ended the game before its own end condition. */
  timedOut: boolean;
}

/**
 * A game's time limit at its start, cut to end by `endsBy` (ms since epoch) when given: a game hosted
 * by an ad break may not run past the ad, however long the player took to press Start. null =
 * untimed (memory outside an ad break).
 */
export function limitWithin(limitMs: number | null, now: number, endsBy: number | undefined): number | null {
  if (endsBy === undefined) return limitMs;
  const left = Math.max(0, endsBy - now);
  return limitMs === null ? left : Math.min(limitMs, left);
}
