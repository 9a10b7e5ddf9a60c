import { countdownAnnouncement } from './countdown-announcement';

describe('countdownAnnouncement', () => {
  it('changes only at the start, every 10 s, at 5 s and at the end', () => {
    const said = new Set<string>();
    const changes: number[] = [];
    let last = '';
    for (let r = 30; r >= 0; r--) {
      const text = countdownAnnouncement(r, 30);
      if (text !== last) changes.push(r);
      last = text;
      said.add(text);
    }
    expect(changes).toEqual([30, 20, 10, 5, 0]);
    expect([...said]).toEqual([
      'Ad playing: 30 seconds left.',
      '20 seconds left.',
      '10 seconds left.',
      '5 seconds left.',
      'Ad finished.',
    ]);
  });

  it('handles durations that are not multiples of 10', () => {
    expect(countdownAnnouncement(15, 15)).toBe('Ad playing: 15 seconds left.');
    expect(countdownAnnouncement(11, 15)).toBe('Ad playing: 15 seconds left.');
    expect(countdownAnnouncement(10, 15)).toBe('10 seconds left.');
    expect(countdownAnnouncement(6, 15)).toBe('10 seconds left.');
    expect(countdownAnnouncement(3, 15)).toBe('5 seconds left.');
  });
});
