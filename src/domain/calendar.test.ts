import { addDays, calendarDay, clampUtcOffset, daysBetween, isCalendarDay, utcOffsetMinutesOf } from './calendar';

describe('calendarDay', () => {
  const instant = new Date('2024-03-10T23:30:00Z');

  it('uses UTC by default', () => {
    expect(calendarDay(instant)).toBe('2024-03-10');
  });

  it('shifts east and west of UTC', () => {
    expect(calendarDay(instant, 60)).toBe('2024-03-11');
    expect(calendarDay(new Date('2024-03-10T02:00:00Z'), -300)).toBe('2024-03-09');
  });

  it('clamps the offset to ±840 minutes', () => {
    // +10000 min would land 7 days later; clamped to +14 h it is the next day.
    expect(calendarDay(instant, 10_000)).toBe('2024-03-11');
    expect(calendarDay(new Date('2024-03-10T13:00:00Z'), -10_000)).toBe('2024-03-09');
  });

  it('accepts ISO strings and rejects invalid dates', () => {
    expect(calendarDay('2024-01-01T00:00:00Z')).toBe('2024-01-01');
    expect(() => calendarDay('nope')).toThrow(RangeError);
  });
});

describe('clampUtcOffset', () => {
  it('clamps, rounds and neutralises non-numbers', () => {
    expect(clampUtcOffset(900)).toBe(840);
    expect(clampUtcOffset(-900)).toBe(-840);
    expect(clampUtcOffset(330.4)).toBe(330);
    expect(clampUtcOffset(Number.NaN)).toBe(0);
    expect(Object.is(clampUtcOffset(-0), 0)).toBe(true);
  });
});

describe('utcOffsetMinutesOf', () => {
  it('is the negation of getTimezoneOffset', () => {
    const d = new Date();
    expect(utcOffsetMinutesOf(d)).toBe(-d.getTimezoneOffset() || 0);
  });
});

describe('day arithmetic', () => {
  it('validates days', () => {
    expect(isCalendarDay('2024-02-29')).toBe(true);
    expect(isCalendarDay('2023-02-29')).toBe(false);
    expect(isCalendarDay('2024-2-1')).toBe(false);
  });

  it('counts and adds days across month and year ends', () => {
    expect(daysBetween('2023-12-31', '2024-01-01')).toBe(1);
    expect(daysBetween('2024-03-01', '2024-02-28')).toBe(-2);
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
    expect(addDays('2024-12-31', 1)).toBe('2025-01-01');
  });
});
