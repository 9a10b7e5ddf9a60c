import { DAY_MS } from './calendar';
import { calendarDayInZone, canonicalTimeZone, TIME_ZONE_CHANGE_INTERVAL_MS, timeZoneToStore } from './time-zone';

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
