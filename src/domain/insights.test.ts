import {
  avgPerDay,
  efficiencyScore,
  isAdSkipperPro,
  memberDays,
  photosOrganized,
  pointsPerDay,
  weeklyProgress,
} from './insights';

const DAY = 86_400_000;

describe('memberDays', () => {
  const now = new Date('2024-05-10T12:00:00Z');
  it('floors whole days since creation', () => {
    expect(memberDays(new Date(now.getTime() - 3 * DAY - 1000), now)).toBe(3);
    expect(memberDays(new Date(now.getTime() - DAY + 1), now)).toBe(0);
    expect(memberDays('2024-05-01T12:00:00Z', now)).toBe(9);
  });
  it('is 0 for future or invalid creation dates', () => {
    expect(memberDays(new Date(now.getTime() + DAY), now)).toBe(0);
    expect(memberDays('bad', now)).toBe(0);
  });
});

describe('avgPerDay', () => {
  it('rounds total / days and is 0 with zero days', () => {
    expect(avgPerDay(100, 3)).toBe(33);
    expect(avgPerDay(50, 4)).toBe(13); // 12.5 rounds up
    expect(avgPerDay(100, 0)).toBe(0);
  });
});

describe('efficiencyScore', () => {
  it('is ads / photos x 100 rounded, 0 without photos', () => {
    expect(efficiencyScore(1, 3)).toBe(33);
    expect(efficiencyScore(2, 3)).toBe(67);
    expect(efficiencyScore(30, 10)).toBe(300);
    expect(efficiencyScore(5, 0)).toBe(0);
  });
});

describe('weeklyProgress', () => {
  it('is avg x 7 rounded only after more than 7 days', () => {
    expect(weeklyProgress(12.4, 8)).toBe(87);
    expect(weeklyProgress(12, 7)).toBeNull();
    expect(weeklyProgress(12, 0)).toBeNull();
  });
});

describe('dashboard thresholds', () => {
  it('Ad Skipper Pro is strictly above 10', () => {
    expect(isAdSkipperPro(10)).toBe(false);
    expect(isAdSkipperPro(11)).toBe(true);
  });

  it('counts photos in an album or with a real category', () => {
    expect(
      photosOrganized([
        { albumId: 'a1', category: null },
        { albumId: null, category: 'nature' },
        { albumId: null, category: 'uncategorized' },
        { albumId: null, category: null },
        { category: '' },
        { albumId: 0 },
      ]),
    ).toBe(3);
  });
});

describe('pointsPerDay', () => {
  const now = new Date('2024-05-10T10:00:00Z');

  it('returns the last 7 days oldest first, zero-filled', () => {
    const days = pointsPerDay([], now);
    expect(days.map((d) => d.date)).toEqual([
      '2024-05-04',
      '2024-05-05',
      '2024-05-06',
      '2024-05-07',
      '2024-05-08',
      '2024-05-09',
      '2024-05-10',
    ]);
    expect(days.every((d) => d.points === 0)).toBe(true);
  });

  it('sums per day and ignores entries outside the window or invalid', () => {
    const days = pointsPerDay(
      [
        { points: 5, createdAt: '2024-05-10T01:00:00Z' },
        { points: 7, createdAt: new Date('2024-05-10T09:59:00Z') },
        { points: 3, createdAt: '2024-05-04T00:00:00Z' },
        { points: 100, createdAt: '2024-05-03T23:59:59Z' },
        { points: 100, createdAt: 'garbage' },
      ],
      now,
    );
    expect(days[6]).toEqual({ date: '2024-05-10', points: 12 });
    expect(days[0]).toEqual({ date: '2024-05-04', points: 3 });
    expect(days.reduce((sum, d) => sum + d.points, 0)).toBe(15);
  });

  it('buckets by the user’s local day', () => {
    // 23:30 UTC on the 9th is already the 10th in UTC+2.
    const entries = [{ points: 4, createdAt: '2024-05-09T23:30:00Z' }];
    expect(pointsPerDay(entries, now, 7, 0)[5]).toEqual({ date: '2024-05-09', points: 4 });
    expect(pointsPerDay(entries, now, 7, 120)[6]).toEqual({ date: '2024-05-10', points: 4 });
  });

  it('supports other window sizes', () => {
    expect(pointsPerDay([], now, 3)).toHaveLength(3);
    expect(pointsPerDay([], now, 0)).toEqual([]);
  });
});
