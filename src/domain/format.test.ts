import {
  formatCents,
  formatClock12h,
  formatCountdown,
  formatDay,
  formatElapsed,
  formatRelativeTime,
  formatSizeMb,
  formatTimeSaved,
} from './format';

describe('formatTimeSaved', () => {
  it.each([
    [0, '0s'],
    [59, '59s'],
    [60, '1m'],
    [119, '1m'],
    [120, '2m'],
    [3600, '60m'],
    [59.9, '59s'],
    [-5, '0s'],
    [Number.NaN, '0s'],
  ])('%s s -> %s', (seconds, text) => {
    expect(formatTimeSaved(seconds)).toBe(text);
  });
});

describe('formatRelativeTime', () => {
  const now = new Date('2024-05-01T12:00:00Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);

  it.each([
    [0, 'Just now'],
    [59_999, 'Just now'],
    [60_000, '1 minute ago'],
    [119_000, '1 minute ago'],
    [5 * 60_000, '5 minutes ago'],
    [59 * 60_000, '59 minutes ago'],
    [3_600_000, '1 hour ago'],
    [23 * 3_600_000, '23 hours ago'],
    [86_400_000, '1 day ago'],
    [10 * 86_400_000, '10 days ago'],
  ])('%s ms ago -> %s', (ms, text) => {
    expect(formatRelativeTime(ago(ms), now)).toBe(text);
  });

  it('treats future dates as just now and bad dates as empty', () => {
    expect(formatRelativeTime(new Date(now.getTime() + 3_600_000), now)).toBe('Just now');
    expect(formatRelativeTime('not a date', now)).toBe('');
  });

  it('accepts ISO strings', () => {
    expect(formatRelativeTime('2024-05-01T10:00:00Z', now)).toBe('2 hours ago');
  });
});

describe('formatElapsed', () => {
  const now = new Date('2024-05-01T12:00:00Z');
  it('describes a duration without "ago"', () => {
    expect(formatElapsed(now, now)).toBe('less than a minute');
    expect(formatElapsed(new Date(now.getTime() - 120_000), now)).toBe('2 minutes');
    expect(formatElapsed(new Date(now.getTime() - 3_600_000), now)).toBe('1 hour');
    expect(formatElapsed(new Date(now.getTime() - 3 * 86_400_000), now)).toBe('3 days');
    expect(formatElapsed('garbage', now)).toBe('');
  });
});

describe('formatSizeMb', () => {
  it('divides by 1048576 with one decimal', () => {
    expect(formatSizeMb(2_516_582)).toBe('2.4 MB');
    expect(formatSizeMb(1_048_576)).toBe('1.0 MB');
    expect(formatSizeMb(0)).toBe('0.0 MB');
    expect(formatSizeMb(52_429)).toBe('0.1 MB'); // 0.05 MB rounds up
    expect(formatSizeMb(-1)).toBe('0.0 MB');
  });
});

describe('formatCountdown', () => {
  it.each([
    [30, '0:30'],
    [75, '1:15'],
    [5, '0:05'],
    [0, '0:00'],
    [0.2, '0:01'],
    [-3, '0:00'],
    [600, '10:00'],
  ])('%s -> %s', (seconds, text) => {
    expect(formatCountdown(seconds)).toBe(text);
  });
});

describe('formatClock12h', () => {
  it('shows 12-hour h:mm in local time', () => {
    expect(formatClock12h(new Date(2024, 0, 1, 13, 5))).toBe('1:05');
    expect(formatClock12h(new Date(2024, 0, 1, 0, 7))).toBe('12:07');
    expect(formatClock12h(new Date(2024, 0, 1, 12, 0))).toBe('12:00');
    expect(formatClock12h(new Date(2024, 0, 1, 9, 45))).toBe('9:45');
  });

  it('can append the period', () => {
    expect(formatClock12h(new Date(2024, 0, 1, 0, 7), { withPeriod: true })).toBe('12:07 AM');
    expect(formatClock12h(new Date(2024, 0, 1, 12, 30), { withPeriod: true })).toBe('12:30 PM');
  });
});

describe('formatCents', () => {
  it.each([
    [499, '$4.99'],
    [0, '$0.00'],
    [4790, '$47.90'],
    [5, '$0.05'],
    [123_456, '$1,234.56'],
    [-150, '-$1.50'],
  ])('%s -> %s', (cents, text) => {
    expect(formatCents(cents)).toBe(text);
  });

  it('can drop .00 on whole dollars only', () => {
    expect(formatCents(1200, { trimWholeDollars: true })).toBe('$12');
    expect(formatCents(1198, { trimWholeDollars: true })).toBe('$11.98');
  });
});

describe('formatDay', () => {
  it('names the month and reads the day in the zone given', () => {
    const instant = '2026-04-09T23:30:00Z';
    expect(formatDay(instant, 'UTC')).toBe('Apr 9, 2026');
    expect(formatDay(instant, 'Europe/Paris')).toBe('Apr 10, 2026');
    expect(formatDay(instant, 'America/Los_Angeles')).toBe('Apr 9, 2026');
    expect(formatDay('2026-12-31T12:00:00Z', 'UTC')).toBe('Dec 31, 2026');
    expect(formatDay('not a date', 'UTC')).toBe('');
  });
});
