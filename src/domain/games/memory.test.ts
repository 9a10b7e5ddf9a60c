import {
  createMemoryGame,
  flipCard,
  MEMORY_EMOJIS,
  memoryNextDeadline,
  type MemoryState,
  startMemory,
  tickMemory,
} from './memory';

const T0 = 1_000_000;

function started(seed = 1, timeLimitSeconds?: number): MemoryState {
  return startMemory(createMemoryGame({ seed, timeLimitSeconds }), T0);
}

/** Ids of a matching pair and of two cards that do not match. */
function pairs(state: MemoryState): { pair: [number, number]; mismatch: [number, number] } {
  const [first] = state.cards;
  const twin = state.cards.find((c) => c.id !== first.id && c.emoji === first.emoji);
  const other = state.cards.find((c) => c.emoji !== first.emoji);
  if (!twin || !other) throw new Error('bad deal');
  return { pair: [first.id, twin.id], mismatch: [first.id, other.id] };
}

function solve(state: MemoryState, now: number): MemoryState {
  let s = state;
  const seen = new Set<number>();
  for (const card of s.cards) {
    if (seen.has(card.id)) continue;
    const twin = s.cards.find((c) => c.id !== card.id && c.emoji === card.emoji);
    if (!twin) throw new Error('bad deal');
    seen.add(card.id);
    seen.add(twin.id);
    s = flipCard(flipCard(s, card.id, now), twin.id, now);
  }
  return s;
}

describe('memory deal', () => {
  it('deals 6 pairs from the 8 emojis, face down, deterministically', () => {
    const game = createMemoryGame({ seed: 123 });
    expect(game.phase).toBe('intro');
    expect(game.cards).toHaveLength(12);
    expect(game.cards.map((c) => c.id)).toEqual([...Array(12).keys()]);
    const counts = new Map<string, number>();
    for (const c of game.cards) counts.set(c.emoji, (counts.get(c.emoji) ?? 0) + 1);
    expect(counts.size).toBe(6);
    expect([...counts.values()].every((n) => n === 2)).toBe(true);
    expect([...counts.keys()].every((e) => (MEMORY_EMOJIS as readonly string[]).includes(e))).toBe(true);
    expect(game.cards.every((c) => !c.isFlipped && !c.isMatched)).toBe(true);
    expect(createMemoryGame({ seed: 123 }).cards).toEqual(game.cards);
    expect(createMemoryGame({ seed: 124 }).cards).not.toEqual(game.cards);
  });

  it('refuses flips before Start, then plays', () => {
    const intro = createMemoryGame({ seed: 1 });
    expect(flipCard(intro, 0, T0)).toBe(intro);
    const playing = startMemory(intro, T0);
    expect(playing.phase).toBe('playing');
    expect(startMemory(playing, T0 + 5)).toBe(playing);
  });
});

describe('memory flips', () => {
  it('a match marks both cards matched and scores 10', () => {
    const s0 = started();
    const { pair } = pairs(s0);
    const s = flipCard(flipCard(s0, pair[0], T0 + 100), pair[1], T0 + 200);
    expect(
      s.cards
        .filter((c) => c.isMatched)
        .map((c) => c.id)
        .sort(),
    ).toEqual([...pair].sort());
    expect(s.flippedIds).toEqual([]);
    expect(s.matches).toBe(1);
    expect(s.score).toBe(10);
    expect(s.moves).toBe(1);
    expect(s.timer).toBeNull();
  });

  it('refuses a third flip while two are face up', () => {
    const s0 = started();
    const { mismatch } = pairs(s0);
    const two = flipCard(flipCard(s0, mismatch[0], T0), mismatch[1], T0 + 10);
    const third = s0.cards.find((c) => !mismatch.includes(c.id));
    if (!third) throw new Error('no card');
    expect(flipCard(two, third.id, T0 + 20)).toBe(two);
  });

  it('refuses re-selecting a flipped or matched card, or an unknown id', () => {
    const s0 = started();
    const { pair } = pairs(s0);
    const one = flipCard(s0, pair[0], T0);
    expect(flipCard(one, pair[0], T0 + 1)).toBe(one);
    const matched = flipCard(one, pair[1], T0 + 2);
    expect(flipCard(matched, pair[0], T0 + 3)).toBe(matched);
    expect(flipCard(matched, pair[1], T0 + 3)).toBe(matched);
    expect(flipCard(matched, 999, T0 + 3)).toBe(matched);
  });

  it('a mismatch flips back at 1000 ms, not before', () => {
    const s0 = started();
    const { mismatch } = pairs(s0);
    const two = flipCard(flipCard(s0, mismatch[0], T0), mismatch[1], T0 + 50);
    expect(memoryNextDeadline(two)).toBe(T0 + 1050);

    const early = tickMemory(two, T0 + 1049);
    expect(early).toBe(two);
    expect(early.cards.filter((c) => c.isFlipped)).toHaveLength(2);

    const back = tickMemory(two, T0 + 1050);
    expect(back.cards.some((c) => c.isFlipped)).toBe(false);
    expect(back.flippedIds).toEqual([]);
    expect(back.timer).toBeNull();
    expect(back.score).toBe(0);
  });

  it('a flip after the flip-back deadline applies the flip-back first', () => {
    const s0 = started();
    const { mismatch } = pairs(s0);
    const two = flipCard(flipCard(s0, mismatch[0], T0), mismatch[1], T0);
    const s = flipCard(two, mismatch[0], T0 + 1500);
    expect(s.flippedIds).toEqual([mismatch[0]]);
    expect(s.cards.filter((c) => c.isFlipped).map((c) => c.id)).toEqual([mismatch[0]]);
  });
});

describe('memory completion', () => {
  it('completes 500 ms after the last pair with score 60', () => {
    const solved = solve(started(7), T0 + 2000);
    expect(solved.matches).toBe(6);
    expect(solved.phase).toBe('playing');
    expect(solved.result).toBeNull();
    expect(memoryNextDeadline(solved)).toBe(T0 + 2500);

    expect(tickMemory(solved, T0 + 2499).phase).toBe('playing');
    const done = tickMemory(solved, T0 + 2500);
    expect(done.phase).toBe('complete');
    expect(done.result).toEqual({ score: 60, timedOut: false });
    expect(memoryNextDeadline(done)).toBeNull();
    expect(tickMemory(done, T0 + 99_999)).toBe(done);
  });

  it('is untimed by default', () => {
    const s = started(3);
    expect(memoryNextDeadline(s)).toBeNull();
    expect(tickMemory(s, T0 + 3_600_000)).toBe(s);
  });

  it('with a time limit, ends with the matches so far', () => {
    const s0 = started(3, 30);
    const { pair } = pairs(s0);
    const s = flipCard(flipCard(s0, pair[0], T0 + 1000), pair[1], T0 + 2000);
    expect(memoryNextDeadline(s)).toBe(T0 + 30_000);
    expect(tickMemory(s, T0 + 29_999).phase).toBe('playing');
    const done = tickMemory(s, T0 + 30_000);
    expect(done.phase).toBe('complete');
    expect(done.result).toEqual({ score: 10, timedOut: true });
    expect(flipCard(done, 0, T0 + 30_001)).toBe(done);
  });
});
