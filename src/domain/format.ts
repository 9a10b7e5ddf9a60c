/**
 * Display formatting shared by every screen. Pure: the current time is always
 * passed in, so the same inputs render the same text on server and client.
 */
import { toDate, type DateInput } from './calendar';

const MINUTE_S = 60;
const HOUR_S = 3600;
const DAY_S = 86_400;

/** Whole, non-negative seconds; garbage in becomes 0 rather than 'NaNs' on screen. */
function wholeSeconds(seconds: number): number {
  return Number.isFinite(seconds) && seconds > 0 ? Math.floor(seconds) : 0;
}

/** Time Saved stat: 'Ns' under a minute, otherwise whole minutes floored ('119' -> '1m'). */
export function formatTimeSaved(seconds: number): string {
  const s = wholeSeconds(seconds);
  return s < MINUTE_S ? `${s}s` : `${Math.floor(s / MINUTE_S)}m`;
}

function unit(count: number, singular: string): string {
  // The spec writes the plural form ('N minutes ago'); '1 minutes ago' reads as a bug,
  // so exactly 1 uses the singular. Every other count keeps the spec's wording.
  return `${count} ${singular}${count === 1 ? '' : 's'}`;
}

/**
 * How long since `date`, without 'ago': 'less than a minute', '5 minutes',
 * '1 hour', '3 days'. For the status card's 'Active for {…}' and
 * 'Last activity: {…} ago', where 'Just now' would not fit the sentence.
 * Future dates (clock skew) count as 0.
 */
export function formatElapsed(date: DateInput, now: Date): string {
  const ms = toDate(date).getTime();
  if (Number.isNaN(ms)) return '';
  const s = wholeSeconds((now.getTime() - ms) / 1000);
  if (s < MINUTE_S) return 'less than a minute';
  if (s < HOUR_S) return unit(Math.floor(s / MINUTE_S), 'minute');
  if (s < DAY_S) return unit(Math.floor(s / HOUR_S), 'hour');
  return unit(Math.floor(s / DAY_S), 'day');
}

/**
 * Activity timestamps: 'Just now' under a minute, else 'N minutes ago' /
 * 'N hours ago' / 'N days ago' (floored; singular for 1, e.g. '1 hour ago').
 * Returns '' for an unparseable date so a bad row cannot crash a list.
 */
export function formatRelativeTime(date: DateInput, now: Date): string {
  const ms = toDate(date).getTime();
  if (Number.isNaN(ms)) return '';
  if ((now.getTime() - ms) / 1000 < MINUTE_S) return 'Just now';
  return `${formatElapsed(ms, now)} ago`;
}

/**
 * A calendar date for a screen ('Apr 9, 2026'), in `timeZone` (the runtime's own when omitted).
 * One locale on purpose: the server paints the dashboard with it and the app must show the same
 * text, and the month's name reads one way everywhere (where '4/9/2026' is April or September).
 * '' for an unparseable date.
 */
export function formatDay(date: DateInput, timeZone?: string): string {
  const d = toDate(date);
  if (Number.isNaN(d.getTime())) return '';
  return d.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone });
}

/** Photo sizes: bytes / 1048576 with one decimal, e.g. '2.4 MB'. */
export function formatSizeMb(bytes: number): string {
  const safe = Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
  return `${(safe / 1_048_576).toFixed(1)} MB`;
}

/**
 * Countdown badge 'm:ss' (e.g. 30 -> '0:30', 75 -> '1:15').
 * Fractions round UP so the badge shows '0:01' until the time is truly over.
 */
export function formatCountdown(seconds: number): string {
  const s = Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 0;
  return `${Math.floor(s / MINUTE_S)}:${String(s % MINUTE_S).padStart(2, '0')}`;
}

export interface ClockOptions {
  /** Append ' AM'/' PM'. Off by default: the status bar mimics a phone's, which omits it. */
  withPeriod?: boolean;
}

/** Status-bar clock 'h:mm' in 12-hour form, in the runtime's local zone (13:05 -> '1:05', 00:07 -> '12:07'). */
export function formatClock12h(date: Date, options: ClockOptions = {}): string {
  const hours24 = date.getHours();
  const hours12 = hours24 % 12 === 0 ? 12 : hours24 % 12;
  const clock = `${hours12}:${String(date.getMinutes()).padStart(2, '0')}`;
  if (!options.withPeriod) return clock;
  return `${clock} ${hours24 < 12 ? 'AM' : 'PM'}`;
}

export interface CentsOptions {
  /** Drop '.00' for whole-dollar amounts ('$12' instead of '$12.00'). */
  trimWholeDollars?: boolean;
}

/** US dollars from integer cents: 499 -> '$4.99', 123456 -> '$1,234.56', -150 -> '-$1.50'. */
export function formatCents(cents: number, options: CentsOptions = {}): string {
  const safe = Number.isFinite(cents) ? Math.round(cents) : 0;
  const abs = Math.abs(safe);
  const dollars = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const rest = abs % 100;
  const fraction = options.trimWholeDollars && rest === 0 ? '' : `.${String(rest).padStart(2, '0')}`;
  return `${safe < 0 ? '-' : ''}$${dollars}${fraction}`;
}
