/**
 * What a polite live region says about an ad countdown. The text changes only at the start, every
 * 10 seconds, at 5 seconds and at the end, so a screen reader is not told every second.
 */
export function countdownAnnouncement(remaining: number, duration: number): string {
  if (remaining <= 0) return 'Ad finished.';
  if (remaining >= duration) return `Ad playing: ${duration} seconds left.`;
  if (remaining <= 5) return '5 seconds left.';
  const milestone = Math.ceil(remaining / 10) * 10;
  if (milestone >= duration) return `Ad playing: ${duration} seconds left.`;
  return `${milestone} seconds left.`;
}
