/**
 * Cross-game rules: time limit, points, rating, the simulated ads, and the
 * server's plausibility check of a posted game result.
 */
import { MEMORY_MAX_SCORE, MEMORY_POINTS_PER_MATCH } from './memory';
import {
  maxReactionSpawns,
  REACTION_HITS_TO_END,
  REACTION_MAX_SCORE,
  REACTION_MISSES_TO_END,
  reactionScore,
} from './reaction';
import {
  maxTriviaTimeBonus,
  TRIVIA_MAX_SCORE,
  TRIVIA_MIN_TIME_BONUS,
  TRIVIA_NEXT_QUESTION_DELAY_MS,
  TRIVIA_POINTS_PER_CORRECT,
  TRIVIA_QUESTION_COUNT,
} from './trivia';

export const GAME_TYPES = ['memory', 'reaction', 'trivia', 'none'] as const;
/** 'none' = the player skipped or closed the dialog without playing. */
export type GameType = (typeof GAME_TYPES)[number];
export type PlayableGameType = Exclude<GameType, 'none'>;

export function isGameType(value: unknown): value is GameType {
  return typeof value === 'string' && (GAME_TYPES as readonly string[]).includes(value);
}

/** The selection view's choices, in display order. */
export const GAME_CHOICES: readonly { type: PlayableGameType; name: string; description: string }[] = [
  { type: 'memory', name: 'Memory Match', description: 'Find matching pairs of emojis' },
  { type: 'reaction', name: 'Reaction Speed', description: 'Tap targets as fast as you can' },
  { type: 'trivia', name: 'Quick Trivia', description: 'Answer fun questions about tech & photos' },
];

// ---------------------------------------------------------------- ads and time

export interface SimulatedAd {
  app: 'YouTube' | 'Instagram' | 'TikTok';
  durationSeconds: number;
}

export const SIMULATED_ADS: readonly SimulatedAd[] = [
  { app: 'YouTube', durationSeconds: 30 },
  { app: 'Instagram', durationSeconds: 15 },
  { app: 'TikTok', durationSeconds: 20 },
];

export const DEFAULT_AD_DURATION_SECONDS = 30;
export const DEFAULT_GAME_TIME_LIMIT_SECONDS = 30;
export const MAX_GAME_TIME_LIMIT_SECONDS = 45;

/** The simulated ad's length for an app name; unknown apps get the 30 s default. */
export function adDurationFor(app: string): number {
  return SIMULATED_ADS.find((ad) => ad.app === app)?.durationSeconds ?? DEFAULT_AD_DURATION_SECONDS;
}

/** Seconds a mini-game may last: min(ad duration, 45); 30 when the duration is missing or not positive. */
export function gameTimeLimit(adDurationSeconds?: number | null): number {
  if (adDurationSeconds === null || adDurationSeconds === undefined) return DEFAULT_GAME_TIME_LIMIT_SECONDS;
  if (!Number.isFinite(adDurationSeconds) || adDurationSeconds <= 0) return DEFAULT_GAME_TIME_LIMIT_SECONDS;
  return Math.min(adDurationSeconds, MAX_GAME_TIME_LIMIT_SECONDS);
}

// ---------------------------------------------------------------- points and rating

/** Points for a finished game: score / 10 rounded down (a score under 10 earns 0). */
export function gamePoints(score: number): number {
  return Number.isFinite(score) && score > 0 ? Math.floor(score / 10) : 0;
}

/** Points when the player skips, or closes the dialog before finishing a game. */
export const NO_GAME_POINTS = 1;

export type Stars = 1 | 2 | 3;

export interface Rating {
  label: 'Amazing!' | 'Great job!' | 'Good try!';
  stars: Stars;
}

export function rating(score: number): Rating {
  if (score >= 100) return { label: 'Amazing!', stars: 3 };
  if (score >= 50) return { label: 'Great job!', stars: 2 };
  return { label: 'Good try!', stars: 1 };
}

/**
 * Highest score each game's rules allow. Trivia's 90 assumes the full time
 * bonus, which the 2 s pauses make unreachable; validateGameResult applies
 * the tighter bound for the actual time limit.
 */
export const MAX_SCORE: Readonly<Record<GameType, number>> = {
  memory: MEMORY_MAX_SCORE,
  reaction: REACTION_MAX_SCORE,
  trivia: TRIVIA_MAX_SCORE,
  none: 0,
};

// ---------------------------------------------------------------- server validation

export interface GameData {
  gameType: string;
  score: number;
  completed: boolean;
}

export type GameResultCheck =
  { ok: true; gameType: GameType; score: number; completed: boolean; points: number } | { ok: false; reason: string };

/**
 * Questions a trivia game can have answered `seconds` after its start: the n-th answer comes after
 * n - 1 feedback pauses at best, and an answer at the time limit is too late.
 */
export function maxTriviaAnswers(seconds: number): number {
  if (!(seconds > 0)) return 0;
  const pauses = Math.ceil((seconds * 1000) / TRIVIA_NEXT_QUESTION_DELAY_MS) - 1;
  return Math.min(TRIVIA_QUESTION_COUNT, pauses + 1);
}

/**
 * The highest score a game's own rules allow within `seconds` of play (the ad break it was played
 * in; the game's clock never outlasts the ad). Memory: 6 matches, flips are instant. Reaction: every
 * target that can appear before the end hit at once (at most 15), full accuracy bonus. Trivia: the
 * questions the 2 s pauses leave time to answer, plus the time bonus only when all 8 are.
 */
export function maxScoreWithin(gameType: GameType, seconds: number): number {
  if (!(seconds > 0) || gameType === 'none') return 0;
  if (gameType === 'memory') return MEMORY_MAX_SCORE;
  if (gameType === 'reaction') {
    const hits = Math.min(REACTION_HITS_TO_END, maxReactionSpawns(seconds * 1000));
    return hits > 0 ? reactionScore(hits, 0) : 0;
  }
  const answered = maxTriviaAnswers(seconds);
  const bonus = answered === TRIVIA_QUESTION_COUNT ? maxTriviaTimeBonus(seconds * 1000) : 0;
  return answered * TRIVIA_POINTS_PER_CORRECT + bonus;
}

function memoryScores(): Set<number> {
  const scores = new Set<number>();
  for (let m = 0; m * MEMORY_POINTS_PER_MATCH <= MEMORY_MAX_SCORE; m++) scores.add(m * MEMORY_POINTS_PER_MATCH);
  return scores;
}

function reactionScores(timeLimitSeconds: number): Set<number> {
  const spawns = maxReactionSpawns(timeLimitSeconds * 1000);
  const scores = new Set<number>();
  for (let hits = 0; hits <= Math.min(REACTION_HITS_TO_END, spawns); hits++) {
    for (let misses = 0; misses <= Math.min(REACTION_MISSES_TO_END, spawns - hits); misses++) {
      scores.add(reactionScore(hits, misses));
    }
  }
  return scores;
}

function triviaScores(timeLimitSeconds: number): Set<number> {
  const maxBonus = maxTriviaTimeBonus(timeLimitSeconds * 1000);
  const bonuses = [0];
  for (let b = TRIVIA_MIN_TIME_BONUS; b <= maxBonus; b++) bonuses.push(b);
  const scores = new Set<number>();
  const answerable = maxTriviaAnswers(timeLimitSeconds);
  for (let correct = 0; correct <= answerable; correct++) {
    // The bonus is paid only for answering the last question.
    for (const bonus of answerable === TRIVIA_QUESTION_COUNT ? bonuses : [0]) {
      scores.add(correct * TRIVIA_POINTS_PER_CORRECT + bonus);
    }
  }
  return scores;
}

/** Every score a completed game of this type can produce within the time limit. */
export function achievableScores(gameType: PlayableGameType, timeLimitSeconds: number): ReadonlySet<number> {
  if (gameType === 'memory') return memoryScores();
  if (gameType === 'reaction') return reactionScores(timeLimitSeconds);
  return triviaScores(timeLimitSeconds);
}

/**
 * The server's check of a client-reported game, so posted points cannot be inflated.
 * - Unknown type, or a score that is not a non-negative integer: rejected.
 * - 'none', or a game not completed: recorded as score 0 worth NO_GAME_POINTS
 *   (the spec records closing mid-game as a zero-score activity).
 * - Completed: the score must be at most maxScoreWithin(gameTimeLimit(adDuration)) and one the
 *   rules can produce in that time; points = gamePoints(score).
 * This rejects impossible scores; it cannot prove a plausible score was earned.
 */
export function validateGameResult(gameData: GameData, adDurationSeconds?: number | null): GameResultCheck {
  const { gameType, score, completed } = gameData;
  if (!isGameType(gameType)) return { ok: false, reason: `Unknown game type: ${gameType}` };
  if (!Number.isInteger(score) || score < 0) return { ok: false, reason: 'Score must be a non-negative integer' };
  if (gameType === 'none' || !completed) {
    return { ok: true, gameType, score: 0, completed: false, points: NO_GAME_POINTS };
  }
  const limit = gameTimeLimit(adDurationSeconds);
  if (score > maxScoreWithin(gameType, limit) || !achievableScores(gameType, limit).has(score)) {
    return { ok: false, reason: `Score ${score} is not achievable in ${gameType}` };
  }
  return { ok: true, gameType, score, completed: true, points: gamePoints(score) };
}
