import { DAY_MS } from '@domain/calendar';
import { pointsPerDay } from '@domain/insights';
import { calendarDayInZone } from '@domain/time-zone';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pointsLedger } from '../../db/schema';
import { createLedger } from './ledger';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';

/**
 * The dashboard's 7-day chart counts days of the browser's zone (its display cookie), summed in the
 * database with `at time zone`. It used the browser's offset of today for every day: in the week
 * after a daylight saving change the hour around each earlier midnight fell into the next or the
 * previous day.
 */
const ZONE = 'Europe/Berlin';
const HOUR = 3_600_000;

/** The next EU change after `ms`: the last Sunday of March or October, 01:00 UTC. */
function nextBerlinChange(ms: number): number {
  const lastSunday = (year: number, month: number) => {
    const last = new Date(Date.UTC(year, month + 1, 0, 1));
    return last.getTime() - last.getUTCDay() * DAY_MS;
  };
  const year = new Date(ms).getUTCFullYear();
  return [lastSunday(year, 2), lastSunday(year, 9), lastSunday(year + 1, 2)].find((c) => c > ms)!;
}

describe(`the 7-day chart's days (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it("are the zone's days across a daylight saving change, not today's offset", async () => {
    const change = nextBerlinChange(t.clock.now().getTime());
    // Three days after the change, at noon UTC: four of the week's days were under the other offset.
    t.clock.advance(change + 3 * DAY_MS + 11 * HOUR - t.clock.now().getTime());
    const now = t.clock.now().getTime();
    const { cookie, user } = await signUp(t.app);
    // Every half hour on either side of each UTC hour 21..23 and 0..1 of the last 7 days: every
    // local midnight, under either offset, has entries on both sides.
    const entries: Array<{ points: number; createdAt: Date }> = [];
    for (let d = 1; d <= 7; d++) {
      const utcMidnight = Math.floor(now / DAY_MS) * DAY_MS - (d - 1) * DAY_MS;
      for (let m = -180; m <= 60; m += 30)
        entries.push({ points: d * 10 + 1, createdAt: new Date(utcMidnight + m * 60_000) });
    }
    await t.database.db.insert(pointsLedger).values(
      entries.map((e, i) => ({
        userId: user.id,
        source: 'bonus',
        sourceEventId: `bonus:dst-${i}`,
        points: e.points,
        createdAt: e.createdAt,
      })),
    );
    // What the browser sends: its offset today.
    const todayOffset = berlinOffsetMinutes(now);
    const res = await t.app.inject({
      url: `/api/stats?utcOffsetMinutes=${todayOffset}`,
      headers: { cookie: `${cookie}; eyevu_tz=${encodeURIComponent(ZONE)}` },
    });
    expect(res.statusCode).toBe(200);
    const expected = new Map<string, number>();
    for (const e of entries) {
      const day = calendarDayInZone(e.createdAt, ZONE);
      expected.set(day, (expected.get(day) ?? 0) + e.points);
    }
    const days = res.json().pointsByDay as Array<{ date: string; points: number }>;
    expect(days.map((d) => d.date).at(-1)).toBe(calendarDayInZone(new Date(now), ZONE));
    expect(days).toEqual(days.map((d) => ({ date: d.date, points: expected.get(d.date) ?? 0 })));
    // The fixed offset would have said otherwise for the days before the change.
    expect(days).not.toEqual(pointsPerDay(entries, new Date(now), 7, todayOffset));

    // A zone the server does not know: the offset the browser sent, as before.
    const unknown = await t.app.inject({
      url: `/api/stats?utcOffsetMinutes=${todayOffset}`,
      headers: { cookie: `${cookie}; eyevu_tz=Mars%2FOlympus` },
    });
    expect(unknown.json().pointsByDay).toEqual(pointsPerDay(entries, new Date(now), 7, todayOffset));
    // One JavaScript knows and the database's older zone data does not: no 500, the same fallback.
    const ledger = createLedger(t.database.db);
    expect(await ledger.pointsByZoneDaySince(user.id, new Date(now - 8 * DAY_MS), 'Nowhere/Unknown')).toBeNull();
  });
});

/** Berlin's offset east of UTC at an instant, in minutes. */
function berlinOffsetMinutes(ms: number): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: ZONE, timeZoneName: 'longOffset' })
    .formatToParts(new Date(ms))
    .find((p) => p.type === 'timeZoneName')!.value;
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}
