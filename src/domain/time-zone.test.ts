import { DAY_MS } from './calendar';
import {
  calendarDayInZone,
  canonicalTimeZone,
  dayRangeInZone,
  rewardDayRange,
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

describe('rewardDayRange', () => {
  const at = (iso: string) => new Date(iso);

  it("is the stored zone's day when the zone never changed, or changed before that day", () => {
    const never = { timeZone: 'Europe/Paris', previousTimeZone: null, setAt: null };
    expect(rewardDayRange(at('2026-11-28T10:30:00Z'), never)).toEqual(
      dayRangeInZone(at('2026-11-28T10:30:00Z'), 'Europe/Paris'),
    );
    const longAgo = { timeZone: 'Europe/Paris', previousTimeZone: 'Asia/Tokyo', setAt: at('2026-11-20T09:00:00Z') };
    expect(rewardDayRange(at('2026-11-28T10:30:00Z'), longAgo)).toEqual(
      dayRangeInZone(at('2026-11-28T10:30:00Z'), 'Europe/Paris'),
    );
  });

  it('moved ahead (UTC to UTC+14 at 10:30 UTC): the new day starts back at the start of the UTC day', () => {
    const zone = { timeZone: 'Pacific/Kiritimati', previousTimeZone: null, setAt: at('2026-11-28T10:30:00Z') };
    // Kiritimati's 29 November runs 10:00 UTC on the 28th to 10:00 UTC on the 29th.
    expect(rewardDayRange(at('2026-11-28T10:31:00Z'), zone)).toEqual({
      day: '2026-11-29',
      start: at('2026-11-28T00:00:00Z'),
      end: at('2026-11-29T10:00:00Z'),
    });
    // The next local day no longer overlaps the UTC day of the change: a day of its own.
    expect(rewardDayRange(at('2026-11-29T10:30:00Z'), zone)).toEqual(
      dayRangeInZone(at('2026-11-29T10:30:00Z'), 'Pacific/Kiritimati'),
    );
  });

  it('moved back (UTC+14 to UTC-12): every later day that overlaps the old day counts from its start', () => {
    const zone = {
      timeZone: 'Etc/GMT+12',
      previousTimeZone: 'Pacific/Kiritimati',
      setAt: at('2026-11-28T10:30:00Z'),
    };
    // The old day (Kiritimati's 29th) ran 10:00 UTC on the 28th to 10:00 UTC on the 29th.
    const first = rewardDayRange(at('2026-11-28T11:00:00Z'), zone);
    expect(first.start).toEqual(at('2026-11-27T12:00:00Z'));
    const second = rewardDayRange(at('2026-11-28T13:00:00Z'), zone);
    expect(second).toEqual({ day: '2026-11-28', start: at('2026-11-28T10:00:00Z'), end: at('2026-11-29T12:00:00Z') });
  });

  it('never starts a day later than the plain local day would', () => {
    for (const [from, to] of [
      [null, 'Pacific/Kiritimati'],
      ['Etc/GMT+12', 'Pacific/Kiritimati'],
      ['Pacific/Kiritimati', 'Etc/GMT+12'],
      ['America/New_York', 'Asia/Kolkata'],
    ] as const) {
      const setAt = at('2026-11-28T10:30:00Z');
      for (let h = 0; h < 72; h += 5) {
        const t = new Date(setAt.getTime() + h * 3_600_000);
        const r = rewardDayRange(t, { timeZone: to, previousTimeZone: from, setAt });
        const plain = dayRangeInZone(t, to);
        expect(r.start.getTime()).toBeLessThanOrEqual(plain.start.getTime());
        expect(r.end).toEqual(plain.end);
        expect(r.start.getTime()).toBeLessThanOrEqual(t.getTime());
      }
    }
  });
});
