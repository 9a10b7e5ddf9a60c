import {
  createReactionGame,
  hitTarget,
  maxReactionSpawns,
  reactionAccuracy,
  reactionNextDeadline,
  reactionScore,
  type ReactionState,
  spawnInterval,
  startReaction,
  tickReaction,
} from './reaction';

const T0 = 5_000_000;
const ARENA = { width: 300, height: 400 };

function started(timeLimitSeconds = 45, seed = 11): ReactionState {
  return startReaction(createReactionGame({ seed, arena: ARENA, timeLimitSeconds }), T0);
}

/** Hits every target the moment it appears until `count` hits. */
function hitAsTheyAppear(state: ReactionState, count: number): ReactionState {
  let s = state;
  for (let i = 0; i < count; i++) {
    if (s.targets.length === 0) {
      const at = s.nextSpawnAt;
      if (at === null) throw new Error('no spawn scheduled');
      s = tickReaction(s, at);
    }
    const target = s.targets[0];
    s = hitTarget(s, target.id, target.spawnedAt);
  }
  return s;
}

describe('reaction formulas', () => {
  it('spawn interval shrinks by 20 ms per second down to 400', () => {
    expect(spawnInterval(0)).toBe(800);
    expect(spawnInterval(5)).toBe(700);
    expect(spawnInterval(19)).toBe(420);
    expect(spawnInterval(20)).toBe(400);
    expect(spawnInterval(45)).toBe(400);
  });

  it('score = hits x 10 + round(accuracy x 50)', () => {
    expect(reactionAccuracy(0, 0)).toBe(0);
    expect(reactionScore(0, 0)).toBe(0);
    expect(reactionScore(15, 0)).toBe(200);
    expect(reactionScore(15, 5)).toBe(150 + 38); // 0.75 x 50 = 37.5 -> 38
    expect(reactionScore(10, 20)).toBe(100 + 17);
  });

  it('counts possible spawns in a time limit', () => {
    expect(maxReactionSpawns(0)).toBe(0);
    expect(maxReactionSpawns(1)).toBe(1);
    expect(maxReactionSpawns(801)).toBe(2);
    expect(maxReactionSpawns(15_000)).toBeGreaterThan(15);
  });
});

describe('reaction play', () => {
  it('spawns the first target at start inside the arena', () => {
    const s = started();
    expect(s.phase).toBe('playing');
    expect(s.targets).toHaveLength(1);
    const [t] = s.targets;
    expect(t.spawnedAt).toBe(T0);
    expect(t.expiresAt).toBe(T0 + 2000);
    expect(t.x).toBeGreaterThanOrEqual(0);
    expect(t.x).toBeLessThanOrEqual(ARENA.width - 60);
    expect(t.y).toBeGreaterThanOrEqual(0);
    expect(t.y).toBeLessThanOrEqual(ARENA.height - 60);
    expect(s.nextSpawnAt).toBe(T0 + 800);
  });

  it('is deterministic for a seed', () => {
    const a = tickReaction(started(45, 3), T0 + 5000);
    const b = tickReaction(started(45, 3), T0 + 5000);
    expect(a).toEqual(b);
    expect(tickReaction(started(45, 4), T0 + 5000).targets).not.toEqual(a.targets);
  });

  it('spawns on the shrinking schedule', () => {
    const s = tickReaction(started(), T0 + 1600);
    // 0, 800, then 800 + (800 - 20 x 0.8 = 784) = 1584
    expect(s.targets.map((t) => t.spawnedAt - T0)).toEqual([0, 800, 1584]);
  });

  it('spawn intervals never drop below 400 ms late in the game', () => {
    const s = tickReaction(started(), T0 + 30_000);
    const times = s.targets.map((t) => t.spawnedAt).sort((x, y) => x - y);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBe(400);
  });

  it('a target vanishes after 2000 ms as a miss', () => {
    const s0 = started();
    const first = s0.targets[0];
    expect(tickReaction(s0, T0 + 1999).misses).toBe(0);
    const s = tickReaction(s0, T0 + 2000);
    expect(s.misses).toBe(1);
    expect(s.targets.some((t) => t.id === first.id)).toBe(false);
    expect(hitTarget(s, first.id, T0 + 2000).hits).toBe(0);
  });

  it('a hit scores and removes the target; hitting it again is ignored', () => {
    const s0 = started();
    const id = s0.targets[0].id;
    const s = hitTarget(s0, id, T0 + 300);
    expect(s.hits).toBe(1);
    expect(s.score).toBe(10 + 50);
    expect(s.targets).toHaveLength(0);
    expect(hitTarget(s, id, T0 + 310)).toBe(s);
  });

  it('ends at 15 hits and reports 500 ms later', () => {
    const s = hitAsTheyAppear(started(), 15);
    expect(s.phase).toBe('ending');
    expect(s.endReason).toBe('hits');
    expect(s.hits).toBe(15);
    expect(s.targets).toEqual([]);
    const endedAt = s.endedAt ?? 0;
    expect(reactionNextDeadline(s)).toBe(endedAt + 500);
    expect(tickReaction(s, endedAt + 499).phase).toBe('ending');
    const done = tickReaction(s, endedAt + 500);
    expect(done.phase).toBe('complete');
    expect(done.result).toEqual({ score: 200, timedOut: false });
  });

  it('ends at 20 misses', () => {
    const done = tickReaction(started(), T0 + 60_000);
    expect(done.phase).toBe('complete');
    expect(done.misses).toBe(20);
    expect(done.endReason).toBe('misses');
    expect(done.result).toEqual({ score: 0, timedOut: false });
    const endedAt = done.endedAt ?? 0;
    // The 20th target (spawned ~12.3 s in) expires inside the 45 s limit.
    expect(endedAt - T0).toBeLessThan(45_000);
    expect(tickReaction(started(), endedAt - 1).misses).toBe(19);
    const ending = tickReaction(started(), endedAt);
    expect(ending.phase).toBe('ending');
    expect(ending.targets).toEqual([]);
    expect(reactionNextDeadline(ending)).toBe(endedAt + 500);
  });

  it('ends when the time limit runs out', () => {
    const s0 = started(5);
    const s = tickReaction(s0, T0 + 5000);
    expect(s.phase).toBe('ending');
    expect(s.endReason).toBe('time');
    expect(s.endedAt).toBe(T0 + 5000);
    expect(tickReaction(s, T0 + 5500).result?.timedOut).toBe(true);
  });

  it('ignores hits before start and after the end', () => {
    const intro = createReactionGame({ seed: 1, arena: ARENA, timeLimitSeconds: 30 });
    expect(hitTarget(intro, 1, T0)).toBe(intro);
    expect(reactionNextDeadline(intro)).toBeNull();
    const ended = tickReaction(started(2), T0 + 2000);
    expect(ended.phase).toBe('ending');
    expect(hitTarget(ended, 3, T0 + 2001).hits).toBe(0);
  });

  it('keeps targets inside a tiny arena', () => {
    const s = startReaction(createReactionGame({ seed: 9, arena: { width: 10, height: 10 }, timeLimitSeconds: 5 }), T0);
    expect(s.targets[0]).toMatchObject({ x: 0, y: 0 });
  });
});
