import { describe, expect, it } from 'vitest';
import { smallThumbnailUrl } from './photos-values';

describe('smallThumbnailUrl', () => {
  it("names the small variant of a thumbnail's URL, keeping its photo and version", () => {
    expect(smallThumbnailUrl('/api/photos/8f1c/thumbnail?v=ab12')).toBe('/api/photos/8f1c/small?v=ab12');
    expect(smallThumbnailUrl('/api/photos/8f1c/thumbnail')).toBe('/api/photos/8f1c/small');
  });

  it('leaves anything that is not a thumbnail URL as it is', () => {
    expect(smallThumbnailUrl(null)).toBeNull();
    expect(smallThumbnailUrl(undefined)).toBeUndefined();
    expect(smallThumbnailUrl('')).toBe('');
    expect(smallThumbnailUrl('/api/photos/8f1c/preview?v=ab12')).toBe('/api/photos/8f1c/preview?v=ab12');
    expect(smallThumbnailUrl('/api/photos/thumbnail/original?v=1')).toBe('/api/photos/thumbnail/original?v=1');
    expect(smallThumbnailUrl('https://x.test/api/photos/1/thumbnail')).toBe('https://x.test/api/photos/1/thumbnail');
  });
});
