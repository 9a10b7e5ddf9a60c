import {
  achievableScores,
  adDurationFor,
  DEFAULT_AD_DURATION_SECONDS,
  GAME_CHOICES,
  gamePoints,
  gameTimeLimit,
  MAX_SCORE,
  maxScoreWithin,
  maxTriviaAnswers,
  NO_GAME_POINTS,
  rating,
  SIMULATED_ADS,
  validateGameResult,
} from './scoring';
import { skipReward } from '../rewards';

describe('time limit and ads', () => {
  it('is the lesser of the ad and 45 s, default 30', () => {
    expect(gameTimeLimit(15)).toBe(15);
    expect(gameTimeLimit(30)).toBe(30);
    expect(gameTimeLimit(60)).toBe(45);
    expect(gameTimeLimit()).toBe(30);
    expect(gameTimeLimit(null)).toBe(30);
    expect(gameTimeLimit(0)).toBe(30);
    expect(gameTimeLimit(Number.NaN)).toBe(30);
  });

  it('knows the simulated ads', () => {
    expect(SIMULATED_ADS.map((a) => [a.app, a.durationSeconds])).toEqual([
      ['YouTube', 30],
      ['Instagram', 15],
      ['TikTok', 20],
    ]);
    expect(adDurationFor('Instagram')).toBe(15);
    expect(adDurationFor('Snapchat')).toBe(DEFAULT_AD_DURATION_SECONDS);
    expect(skipReward(adDurationFor('Instagram'))).toBe(2);
  });

  it('lists the three games for the selection view', () => {
    expect(GAME_CHOICES.map((g) => g.name)).toEqual(['Memory Match', 'Reaction Speed', 'Quick Trivia']);
  });
});

describe('points and rating', () => {
  it('points are score / 10 rounded down', () => {
    expect(gamePoints(60)).toBe(6);
    expect(gamePoints(199)).toBe(19);
    expect(gamePoints(9)).toBe(0);
    expect(gamePoints(-5)).toBe(0);
    expect(NO_GAME_POINTS).toBe(1);
  });

  it.each([
    [200, 'Amazing!', 3],
    [100, 'Amazing!', 3],
    [99, 'Great job!', 2],
    [50, 'Great job!', 2],
    [49, 'Good try!', 1],
    [0, 'Good try!', 1],
  ])('score %s -> %s (%s stars)', (score, label, stars) => {
    expect(rating(score)).toEqual({ label, stars });
  });

  it('max scores per game', () => {
    expect(MAX_SCORE).toEqual({ memory: 60, reaction: 200, trivia: 90, none: 0 });
  });
});

describe('maxScoreWithin (what the rules allow in that many seconds)', () => {
  it('memory: all 6 pairs whenever there is any time (flips are instant)', () => {
    expect(maxScoreWithin('memory', 15)).toBe(60);
    expect(maxScoreWithin('memory', 0.1)).toBe(60);
    expect(maxScoreWithin('memory', 0)).toBe(0);
  });

  it('reaction: the 15th target appears at 9.85 s, so 200 needs about 10 s', () => {
    // Spawns at 0, 800, 1584, ... 9239, 9854 ms: 14 targets before 9.8 s, 15 before 9.9 s.
    expect(maxScoreWithin('reaction', 9.8)).toBe(14 * 10 + 50);
    expect(maxScoreWithin('reaction', 9.9)).toBe(200);
    expect(maxScoreWithin('reaction', 15)).toBe(200);
    expect(maxScoreWithin('reaction', 1)).toBe(2 * 10 + 50);
    expect(maxScoreWithin('reaction', 60)).toBe(200);
  });

  it('trivia: one answer per 2 s pause, the bonus only with all 8 answered', () => {
    expect(maxTriviaAnswers(15)).toBe(8);
    expect(maxTriviaAnswers(14)).toBe(7);
    expect(maxTriviaAnswers(14.001)).toBe(8);
    expect(maxTriviaAnswers(1)).toBe(1);
    expect(maxTriviaAnswers(0)).toBe(0);
    expect(maxScoreWithin('trivia', 15)).toBe(80);
    expect(maxScoreWithin('trivia', 20)).toBe(80);
    expect(maxScoreWithin('trivia', 30)).toBe(85);
    expect(maxScoreWithin('trivia', 45)).toBe(87);
    expect(maxScoreWithin('trivia', 10)).toBe(50);
  });

  it('none scores nothing, and the bound never exceeds the absolute maxima', () => {
    expect(maxScoreWithin('none', 30)).toBe(0);
    for (const s of [1, 5, 15, 20, 30, 45, 600]) {
      for (const g of ['memory', 'reaction', 'trivia'] as const) {
        expect(maxScoreWithin(g, s)).toBeLessThanOrEqual(MAX_SCORE[g]);
        expect(achievableScores(g, s).has(maxScoreWithin(g, s))).toBe(true);
        expect(Math.max(...achievableScores(g, s))).toBe(maxScoreWithin(g, s));
      }
    }
  });
});

describe('validateGameResult', () => {
  it('accepts achievable completed scores and computes points', () => {
    expect(validateGameResult({ gameType: 'memory', score: 60, completed: true }, 30)).toEqual({
      ok: true,
      gameType: 'memory',
      score: 60,
      completed: true,
      points: 6,
    });
    expect(validateGameResult({ gameType: 'reaction', score: 200, completed: true }, 15)).toMatchObject({
      ok: true,
      points: 20,
    });
    expect(validateGameResult({ gameType: 'reaction', score: 188, completed: true }, 30)).toMatchObject({ ok: true });
    expect(validateGameResult({ gameType: 'trivia', score: 85, completed: true }, 30)).toMatchObject({
      ok: true,
      points: 8,
    });
    expect(validateGameResult({ gameType: 'trivia', score: 87, completed: true }, 45)).toMatchObject({ ok: true });
  });

  it('rejects impossible scores', () => {
    expect(validateGameResult({ gameType: 'memory', score: 65, completed: true }, 30).ok).toBe(false);
    expect(validateGameResult({ gameType: 'memory', score: 70, completed: true }, 30).ok).toBe(false);
    expect(validateGameResult({ gameType: 'reaction', score: 201, completed: true }, 30).ok).toBe(false);
    expect(validateGameResult({ gameType: 'reaction', score: 1, completed: true }, 30).ok).toBe(false);
    // A 30 s trivia game can earn a bonus of at most 5; a 15 s game none.
    expect(validateGameResult({ gameType: 'trivia', score: 86, completed: true }, 30).ok).toBe(false);
    expect(validateGameResult({ gameType: 'trivia', score: 85, completed: true }, 15).ok).toBe(false);
    expect(validateGameResult({ gameType: 'trivia', score: 90, completed: true }, 45).ok).toBe(false);
    expect(validateGameResult({ gameType: 'trivia', score: 12, completed: true }, 45).ok).toBe(false);
    // 8 correct answers need 14 s of pauses; a bonus without all 8 answered does not exist.
    expect(validateGameResult({ gameType: 'trivia', score: 80, completed: true }, 14).ok).toBe(false);
    expect(validateGameResult({ gameType: 'trivia', score: 75, completed: true }, 30).ok).toBe(true);
    expect(validateGameResult({ gameType: 'reaction', score: 200, completed: true }, 9).ok).toBe(false);
  });

  it('bounds reaction hits by the targets a short game can show', () => {
    // 1 s: targets at 0 and 800 ms only -> at most 2 hits (20 + 50).
    expect(achievableScores('reaction', 1).has(70)).toBe(true);
    expect(achievableScores('reaction', 1).has(80)).toBe(false);
  });

  it('rejects malformed input', () => {
    expect(validateGameResult({ gameType: 'chess', score: 10, completed: true }, 30)).toMatchObject({ ok: false });
    expect(validateGameResult({ gameType: 'memory', score: -10, completed: true }, 30).ok).toBe(false);
    expect(validateGameResult({ gameType: 'memory', score: 10.5, completed: true }, 30).ok).toBe(false);
    expect(validateGameResult({ gameType: 'memory', score: Number.NaN, completed: true }, 30).ok).toBe(false);
  });

  it('skipped or unfinished games record score 0 and 1 point', () => {
    expect(validateGameResult({ gameType: 'none', score: 0, completed: false }, 30)).toEqual({
      ok: true,
      gameType: 'none',
      score: 0,
      completed: false,
      points: 1,
    });
    expect(validateGameResult({ gameType: 'memory', score: 40, completed: false }, 30)).toMatchObject({
      ok: true,
      score: 0,
      points: 1,
    });
  });
});
