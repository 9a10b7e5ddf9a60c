/**
 * Memory Match: 6 pairs dealt from 8 emojis. See ./README.md for the
 * deadline/tick model shared by all games.
 */
import { mulberry32, pickRandom, shuffle } from '../random';
import { type GameOutcome, limitWithin } from './game-outcome';

export const MEMORY_EMOJIS = ['📸', '🌅', '🎨', '🌸', '🚀', '🎮', '🐶', '⭐'] as const;
export const MEMORY_PAIRS = 6;
export const MEMORY_POINTS_PER_MATCH = 10;
export const MEMORY_MISMATCH_DELAY_MS = 1000;
export const MEMORY_COMPLETE_DELAY_MS = 500;
export const MEMORY_MAX_SCORE = MEMORY_PAIRS * MEMORY_POINTS_PER_MATCH;

export interface MemoryCard {
  id: number;
  emoji: string;
  isFlipped: boolean;
  isMatched: boolean;
}

export type MemoryPhase = 'intro' | 'playing' | 'complete';

export type MemoryTimer =
  { kind: 'flip-back'; dueAt: number; cardIds: readonly [number, number] } | { kind: 'complete'; dueAt: number };

export interface MemoryState {
  phase: MemoryPhase;
  cards: readonly MemoryCard[];
  /** Face-up cards not yet matched (0, 1 or 2). */
  flippedIds: readonly number[];
  matches: number;
  /** Pairs of cards turned over, for display. */
  moves: number;
  score: number;
  /** null = untimed. */
  timeLimitMs: number | null;
  startedAt: number | null;
  timer: MemoryTimer | null;
  result: GameOutcome | null;
}

export interface MemoryOptions {
  seed: number;
  /**
   * Optional: end the game when the ad's time runs out, scoring the matches so far.
   * Omit for an untimed game (the spec gives memory no time limit of its own).
   */
  timeLimitSeconds?: number | null;
}

/** Deals a fresh board (ids 0..11 in board order) in the intro phase. */
export function createMemoryGame(options: MemoryOptions): MemoryState {
  const random = mulberry32(options.seed);
  const emojis = pickRandom(MEMORY_EMOJIS, MEMORY_PAIRS, random);
  const deck = shuffle([...emojis, ...emojis], random);
  const limit = options.timeLimitSeconds;
  return {
    phase: 'intro',
    cards: deck.map((emoji, id) => ({ id, emoji, isFlipped: false, isMatched: false })),
    flippedIds: [],
    matches: 0,
    moves: 0,
    score: 0,
    timeLimitMs: limit !== null && limit !== undefined && limit > 0 ? limit * 1000 : null,
    startedAt: null,
    timer: null,
    result: null,
  };
}

/** Starts play; `endsBy` (ms since epoch, the hosting ad's end) cuts the time limit to end by then. */
export function startMemory(state: MemoryState, now: number, endsBy?: number): MemoryState {
  if (state.phase !== 'intro') return state;
  return { ...state, phase: 'playing', startedAt: now, timeLimitMs: limitWithin(state.timeLimitMs, now, endsBy) };
}

function endsAt(state: MemoryState): number | null {
  return state.phase === 'playing' && state.startedAt !== null && state.timeLimitMs !== null
    ? state.startedAt + state.timeLimitMs
    : null;
}

/** When `tickMemory` next has work to do, or null. */
export function memoryNextDeadline(state: MemoryState): number | null {
  if (state.phase !== 'playing') return null;
  const times = [state.timer?.dueAt, endsAt(state)].filter((t): t is number => t !== undefined && t !== null);
  return times.length ? Math.min(...times) : null;
}

function complete(state: MemoryState, timedOut: boolean): MemoryState {
  return { ...state, phase: 'complete', timer: null, result: { score: state.score, timedOut } };
}

/** Applies every timer due at or before `now`, oldest first. */
export function tickMemory(state: MemoryState, now: number): MemoryState {
  let s = state;
  for (;;) {
    if (s.phase !== 'playing') return s;
    const timer = s.timer;
    const end = endsAt(s);
    // On a tie the pending timer goes first: a finished board scores as finished, not timed out.
    if (timer && timer.dueAt <= now && (end === null || timer.dueAt <= end)) {
      if (timer.kind === 'complete') return complete(s, false);
      const [a, b] = timer.cardIds;
      s = {
        ...s,
        timer: null,
        flippedIds: [],
        cards: s.cards.map((c) => (c.id === a || c.id === b ? { ...c, isFlipped: false } : c)),
      };
      continue;
    }
    if (end !== null && end <= now) return complete(s, true);
    return s;
  }
}

/**
 * Turns a card face up. Refused (state returned as is) outside play, while two
 * cards are face up, or for a card that is already face up or matched.
 */
export function flipCard(state: MemoryState, cardId: number, now: number): MemoryState {
  const s = tickMemory(state, now);
  if (s.phase !== 'playing' || s.flippedIds.length >= 2 || s.timer?.kind === 'complete') return s;
  const card = s.cards.find((c) => c.id === cardId);
  if (!card || card.isFlipped || card.isMatched) return s;

  const flippedIds = [...s.flippedIds, cardId];
  let cards = s.cards.map((c) => (c.id === cardId ? { ...c, isFlipped: true } : c));
  if (flippedIds.length < 2) return { ...s, cards, flippedIds };

  const [firstId, secondId] = flippedIds;
  const first = cards.find((c) => c.id === firstId);
  const moves = s.moves + 1;
  if (first && first.emoji === card.emoji) {
    // Matched cards stay face up (isFlipped and isMatched) for the rest of the game.
    cards = cards.map((c) => (c.id === firstId || c.id === secondId ? { ...c, isMatched: true } : c));
    const matches = s.matches + 1;
    const done = matches >= MEMORY_PAIRS;
    return {
      ...s,
      cards,
      flippedIds: [],
      moves,
      matches,
      score: matches * MEMORY_POINTS_PER_MATCH,
      timer: done ? { kind: 'complete', dueAt: now + MEMORY_COMPLETE_DELAY_MS } : null,
    };
  }
  return {
    ...s,
    cards,
    flippedIds,
    moves,
    timer: { kind: 'flip-back', dueAt: now + MEMORY_MISMATCH_DELAY_MS, cardIds: [firstId, secondId] },
  };
}
