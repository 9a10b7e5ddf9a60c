import { describe, expect, it } from 'vitest';
import { safeFileName } from '../features/photos/download-name';
import { photoNameFrom } from '../features/photos/photos.service';
import { withoutControlCharacters } from './control-characters';

const codes = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => String.fromCharCode(from + i));
const controls = [...codes(0x00, 0x1f), ...codes(0x7f, 0x9f)];

describe('control characters in names a client chooses', () => {
  it('removes every C0 and C1 control character and keeps the text around them', () => {
    for (const c of controls) expect(withoutControlCharacters(`Be${c}ach${c}`)).toBe('Beach');
    // The first characters past each range stay: a no-break space, an accented letter.
    expect(withoutControlCharacters(' \u00a0é~')).toBe(' \u00a0é~');
  });

  it('a photo name and a download name lose the same characters', () => {
    for (const c of controls) {
      expect(photoNameFrom(`Sun${c}set.jpg`)).toBe('Sunset');
      expect(safeFileName(`Sun${c}set.jpg`)).toBe('Sunset.jpg');
    }
  });
});
