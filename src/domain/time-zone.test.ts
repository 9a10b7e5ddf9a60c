import { DAY_MS } from './calendar';
import {
  calendarDayInZone,
  canonicalTimeZone,
  dayRangeInZone,
  TIME_ZONE_CHANGE_INTERVAL_MS,
  timeZoneToStore,
} from './time-zone';

describe('canonicalTimeZone', () => {
  it('accepts IANA names in their canonical spelling', () => {
    expect(canonicalTimeZone('Europe/Paris')).toBe('Europe/Paris');
    expect(canonicalTimeZone('europe/paris')).toBe('Europe/Paris');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('Pacific/Kiritimati')).toBe('Pacific/Kiritimati');
  });

  it.each(['', 'Mars/Olympus_Mons', 'Europe/Paris; drop table users', 'x'.repeat(65), '../../etc/passwd'])(
    'refuses %j',
    (name) => {
      expect(canonicalTimeZone(name)).toBeNull();
    },
  );
});

describe('calendarDayInZone', () => {
  const instant = new Date('2024-03-10T23:30:00Z');

  it('gives the local date of the zone', () => {
    expect(calendarDayInZone(instant, 'UTC')).toBe('2024-03-10');
    expect(calendarDayInZone(instant, 'Europe/Paris')).toBe('2024-03-11');
    expect(calendarDayInZone(instant, 'America/Los_Angeles')).toBe('2024-03-10');
    expect(calendarDayInZone(instant, 'Pacific/Kiritimati')).toBe('2024-03-11');
    expect(calendarDayInZone(new Date('2024-03-10T11:30:00Z'), 'Pacific/Pago_Pago')).toBe('2024-03-10');
  });

  it('falls back to UTC without a zone or with one Intl does not know', () => {
    expect(calendarDayInZone(instant, null)).toBe('2024-03-10');
    expect(calendarDayInZone(instant, 'Nowhere/Special')).toBe('2024-03-10');
  });
});

describe('dayRangeInZone', () => {
  const range = (at: string, zone: string | null) => {
    const r = dayRangeInZone(new Date(at), zone);
    return { day: r.day, start: r.start.toISOString(), end: r.end.toISOString() };
  };

  it('spans the local day of the instant, whatever its time of day', () => {
    const utcDay = { day: '2024-03-10', start: '2024-03-10T00:00:00.000Z', end: '2024-03-11T00:00:00.000Z' };
    expect(range('2024-03-10T00:00:00Z', null)).toEqual(utcDay);
    expect(range('2024-03-10T13:14:15.678Z', 'UTC')).toEqual(utcDay);
    expect(range('2024-03-10T23:59:59.999Z', null)).toEqual(utcDay);
    expect(range('2024-03-10T23:30:00Z', 'Europe/Paris')).toEqual({
      day: '2024-03-11',
      start: '2024-03-10T23:00:00.000Z',
      end: '2024-03-11T23:00:00.000Z',
    });
    expect(range('2024-06-01T02:00:00Z', 'Asia/Kolkata')).toEqual({
      day: '2024-06-01',
      start: '2024-05-31T18:30:00.000Z',
      end: '2024-06-01T18:30:00.000Z',
    });
  });

  it('follows days of 23 and 25 hours (DST)', () => {
    expect(range('2024-03-31T12:00:00Z', 'Europe/Paris')).toEqual({
      day: '2024-03-31',
      start: '2024-03-30T23:00:00.000Z',
      end: '2024-03-31T22:00:00.000Z',
    });
    expect(range('2024-11-03T12:00:00Z', 'America/New_York')).toEqual({
      day: '2024-11-03',
      start: '2024-11-03T04:00:00.000Z',
      end: '2024-11-04T05:00:00.000Z',
    });
  });
});

describe('timeZoneToStore', () => {
  const now = new Date('2024-06-01T12:00:00Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);

  it('stores the first zone at once', () => {
    expect(timeZoneToStore({ timeZone: null, setAt: null }, 'Asia/Tokyo', now)).toBe('Asia/Tokyo');
  });

  it('keeps the stored zone when nothing or the same zone is sent', () => {
    expect(timeZoneToStore({ timeZone: 'Asia/Tokyo', setAt: ago(DAY_MS) }, undefined, now)).toBeNull();
    expect(timeZoneToStore({ timeZone: 'Asia/Tokyo', setAt: ago(DAY_MS) }, 'Asia/Tokyo', now)).toBeNull();
  });

  it('changes the zone only once the interval has passed', () => {
    const recent = { timeZone: 'Asia/Tokyo', setAt: ago(TIME_ZONE_CHANGE_INTERVAL_MS - 1) };
    expect(timeZoneToStore(recent, 'Pacific/Kiritimati', now)).toBeNull();
    const old = { timeZone: 'Asia/Tokyo', setAt: ago(TIME_ZONE_CHANGE_INTERVAL_MS) };
    expect(timeZoneToStore(old, 'Pacific/Kiritimati', now)).toBe('Pacific/Kiritimati');
  });
});
