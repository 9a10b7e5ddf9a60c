/**
 * Reaction Speed: tap 60 px targets before they vanish. See ./README.md for
 * the deadline/tick model shared by all games.
 */
import { mulberry32Step } from '../random';
import { type GameOutcome, limitWithin } from './game-outcome';

export const REACTION_TARGET_SIZE_PX = 60;
export const REACTION_TARGET_LIFETIME_MS = 2000;
export const REACTION_POINTS_PER_HIT = 10;
export const REACTION_MAX_ACCURACY_BONUS = 50;
export const REACTION_HITS_TO_END = 15;
export const REACTION_MISSES_TO_END = 20;
export const REACTION_REPORT_DELAY_MS = 500;
export const REACTION_SPAWN_START_MS = 800;
export const REACTION_SPAWN_FLOOR_MS = 400;
/** 15 hits, no misses: 150 + 50. */
export const REACTION_MAX_SCORE = REACTION_HITS_TO_END * REACTION_POINTS_PER_HIT + REACTION_MAX_ACCURACY_BONUS;

/** ms until the next target: 800 - 20 x elapsed seconds, never below 400. */
export function spawnInterval(elapsedSeconds: number): number {
  return Math.max(REACTION_SPAWN_START_MS - 20 * Math.max(0, elapsedSeconds), REACTION_SPAWN_FLOOR_MS);
}

/** hits / (hits + misses); 0 before any target resolved. */
export function reactionAccuracy(hits: number, misses: number): number {
  const total = hits + misses;
  return total > 0 ? hits / total : 0;
}

export function reactionScore(hits: number, misses: number): number {
  return hits * REACTION_POINTS_PER_HIT + Math.round(reactionAccuracy(hits, misses) * REACTION_MAX_ACCURACY_BONUS);
}

/** How many targets can appear in a game of this length (first spawn at 0 ms). Bounds hits for the server. */
export function maxReactionSpawns(timeLimitMs: number): number {
  let count = 0;
  for (let t = 0; t < timeLimitMs; t += spawnInterval(t / 1000)) count++;
  return count;
}

export interface ReactionTarget {
  id: number;
  /** Top-left corner of the 60 px circle inside the arena, px. */
  x: number;
  y: number;
  spawnedAt: number;
  expiresAt: number;
}

export interface ArenaSize {
  width: number;
  height: number;
}

export type ReactionPhase = 'intro' | 'playing' | 'ending' | 'complete';
export type ReactionEndReason = 'hits' | 'misses' | 'time';

export interface ReactionState {
  /** 'ending' is the 500 ms pause between the last event and reporting the score. */
  phase: ReactionPhase;
  arena: ArenaSize;
  timeLimitMs: number;
  startedAt: number | null;
  targets: readonly ReactionTarget[];
  nextSpawnAt: number | null;
  nextTargetId: number;
  /** mulberry32 state, kept here so spawning stays a pure transition. */
  rng: number;
  hits: number;
  misses: number;
  /** Live score by the final formula (hits x 10 + accuracy bonus). */
  score: number;
  endedAt: number | null;
  endReason: ReactionEndReason | null;
  result: GameOutcome | null;
}

export interface ReactionOptions {
  seed: number;
  /** Playing field in px; targets are placed fully inside it. */
  arena: ArenaSize;
  /** Usually gameTimeLimit(adDuration) from scoring.ts. */
  timeLimitSeconds: number;
}

export function createReactionGame(options: ReactionOptions): ReactionState {
  return {
    phase: 'intro',
    arena: { width: Math.max(0, options.arena.width), height: Math.max(0, options.arena.height) },
    timeLimitMs: Math.max(0, options.timeLimitSeconds) * 1000,
    startedAt: null,
    targets: [],
    nextSpawnAt: null,
    nextTargetId: 1,
    rng: options.seed >>> 0,
    hits: 0,
    misses: 0,
    score: 0,
    endedAt: null,
    endReason: null,
    result: null,
  };
}

/**
 * Starts play; the first target appears immediately. `endsBy` (ms since epoch, the hosting ad's end)
 * cuts the time limit to end by then.
 */
export function startReaction(state: ReactionState, now: number, endsBy?: number): ReactionState {
  if (state.phase !== 'intro') return state;
  const timeLimitMs = limitWithin(state.timeLimitMs, now, endsBy) ?? state.timeLimitMs;
  return tickReaction({ ...state, phase: 'playing', startedAt: now, nextSpawnAt: now, timeLimitMs }, now);
}

function endsAt(state: ReactionState): number {
  return (state.startedAt ?? 0) + state.timeLimitMs;
}

function reportAt(state: ReactionState): number {
  return (state.endedAt ?? 0) + REACTION_REPORT_DELAY_MS;
}

export function reactionNextDeadline(state: ReactionState): number | null {
  if (state.phase === 'ending') return reportAt(state);
  if (state.phase !== 'playing') return null;
  const times = [endsAt(state), ...state.targets.map((t) => t.expiresAt)];
  if (state.nextSpawnAt !== null) times.push(state.nextSpawnAt);
  return Math.min(...times);
}

function end(state: ReactionState, at: number, reason: ReactionEndReason): ReactionState {
  // Targets still on screen are neither hits nor misses.
  return { ...state, phase: 'ending', targets: [], nextSpawnAt: null, endedAt: at, endReason: reason };
}

function spawn(state: ReactionState, at: number): ReactionState {
  const size = REACTION_TARGET_SIZE_PX;
  const rx = mulberry32Step(state.rng);
  const ry = mulberry32Step(rx.state);
  const target: ReactionTarget = {
    id: state.nextTargetId,
    x: Math.floor(rx.value * Math.max(0, state.arena.width - size + 1)),
    y: Math.floor(ry.value * Math.max(0, state.arena.height - size + 1)),
    spawnedAt: at,
    expiresAt: at + REACTION_TARGET_LIFETIME_MS,
  };
  const elapsedSeconds = (at - (state.startedAt ?? at)) / 1000;
  return {
    ...state,
    rng: ry.state,
    targets: [...state.targets, target],
    nextTargetId: state.nextTargetId + 1,
    nextSpawnAt: at + spawnInterval(elapsedSeconds),
  };
}

/**
 * Applies everything due at or before `now` in time order. On equal times:
 * expiries, then the time limit, then spawns (no target appears at the final instant).
 */
export function tickReaction(state: ReactionState, now: number): ReactionState {
  let s = state;
  for (;;) {
    if (s.phase === 'ending') {
      if (reportAt(s) > now) return s;
      return { ...s, phase: 'complete', result: { score: s.score, timedOut: s.endReason === 'time' } };
    }
    if (s.phase !== 'playing') return s;

    const expiring = s.targets.reduce<ReactionTarget | null>(
      (soonest, t) => (soonest === null || t.expiresAt < soonest.expiresAt ? t : soonest),
      null,
    );
    const timeUp = endsAt(s);
    const spawnAt = s.nextSpawnAt;

    if (
      expiring &&
      expiring.expiresAt <= now &&
      expiring.expiresAt <= timeUp &&
      (spawnAt === null || expiring.expiresAt <= spawnAt)
    ) {
      const misses = s.misses + 1;
      s = {
        ...s,
        targets: s.targets.filter((t) => t.id !== expiring.id),
        misses,
        score: reactionScore(s.hits, misses),
      };
      if (misses >= REACTION_MISSES_TO_END) s = end(s, expiring.expiresAt, 'misses');
      continue;
    }
    if (timeUp <= now && (spawnAt === null || timeUp <= spawnAt)) {
      s = end(s, timeUp, 'time');
      continue;
    }
    if (spawnAt !== null && spawnAt <= now) {
      s = spawn(s, spawnAt);
      continue;
    }
    return s;
  }
}

/** Taps a target. Ignored for unknown or already vanished targets and outside play. */
export function hitTarget(state: ReactionState, targetId: number, now: number): ReactionState {
  const s = tickReaction(state, now);
  if (s.phase !== 'playing' || !s.targets.some((t) => t.id === targetId)) return s;
  const hits = s.hits + 1;
  const next: ReactionState = {
    ...s,
    targets: s.targets.filter((t) => t.id !== targetId),
    hits,
    score: reactionScore(hits, s.misses),
  };
  return hits >= REACTION_HITS_TO_END ? end(next, now, 'hits') : next;
}
