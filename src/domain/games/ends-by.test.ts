import { limitWithin } from './game-outcome';
import { createMemoryGame, startMemory, tickMemory } from './memory';
import { createReactionGame, reactionNextDeadline, startReaction, tickReaction } from './reaction';
import { createTriviaGame, startTrivia, tickTrivia, triviaTimeLeftSeconds } from './trivia';

const T0 = 1_000_000;

describe("a game hosted by an ad break ends by the ad's end (endsBy)", () => {
  it('cuts the limit to the time left, keeps a shorter limit, and times an untimed game', () => {
    expect(limitWithin(30_000, T0, T0 + 6_000)).toBe(6_000);
    expect(limitWithin(5_000, T0, T0 + 6_000)).toBe(5_000);
    expect(limitWithin(null, T0, T0 + 6_000)).toBe(6_000);
    expect(limitWithin(30_000, T0, T0 - 1)).toBe(0);
    expect(limitWithin(30_000, T0, undefined)).toBe(30_000);
  });

  it('memory started 4 s into a 10 s limit ends at the ad, with the matches so far', () => {
    const s = startMemory(createMemoryGame({ seed: 1, timeLimitSeconds: 10 }), T0, T0 + 6_000);
    expect(tickMemory(s, T0 + 5_999).phase).toBe('playing');
    expect(tickMemory(s, T0 + 6_000).result).toEqual({ score: 0, timedOut: true });
  });

  it('trivia shows and keeps the time the ad has left', () => {
    const s = startTrivia(createTriviaGame({ seed: 1, timeLimitSeconds: 10 }), T0, T0 + 6_000);
    expect(triviaTimeLeftSeconds(s, T0)).toBe(6);
    expect(tickTrivia(s, T0 + 6_000).result).toEqual({ score: 0, timedOut: true });
  });

  it('reaction stops spawning at the ad and reports 0.5 s later', () => {
    const s = startReaction(
      createReactionGame({ seed: 1, arena: { width: 300, height: 300 }, timeLimitSeconds: 10 }),
      T0,
      T0 + 1_000,
    );
    const ended = tickReaction(s, T0 + 1_000);
    expect(ended.phase).toBe('ending');
    expect(ended.endReason).toBe('time');
    expect(reactionNextDeadline(ended)).toBe(T0 + 1_500);
  });
});
