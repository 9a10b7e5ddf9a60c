import {
  achievableScores,
  adDurationFor,
  DEFAULT_AD_DURATION_SECONDS,
  GAME_CHOICES,
  gamePoints,
  gameTimeLimit,
  MAX_SCORE,
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
