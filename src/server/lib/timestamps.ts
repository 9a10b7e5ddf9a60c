/**
 * A timestamp as PostgreSQL writes `timestamptz::text` or JavaScript `toISOString()`: date, time,
 * up to 6 decimals, an optional offset (hours, minutes, seconds) or Z.
 */
const SHAPE =
  /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?(?:[+-](\d{2})(?::(\d{2}))?(?::(\d{2}))?|Z)?$/;

/** PostgreSQL refuses an offset of 16 hours or more ("time zone displacement out of range"). */
const MAX_OFFSET_HOURS = 15;

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether `s` is shaped like a timestamp AND names a real instant PostgreSQL accepts. Cursors carry
 * one back from the client: a 13th month, 30 February, hour 25 or year 0 passes the shape, and
 * PostgreSQL then fails the whole query (a 500) instead of the cursor being refused (a 400).
 */
export function isTimestampText(s: string): boolean {
  const m = SHAPE.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return false;
  if (d > (mo === 2 && isLeap(y) ? 29 : DAYS[mo - 1]!)) return false;
  if (h > 23 || mi > 59 || sec > 59) return false;
  const [oh, om, os] = m.slice(7, 10).map((v) => Number(v ?? 0)) as [number, number, number];
  return oh <= MAX_OFFSET_HOURS && om <= 59 && os <= 59;
}
