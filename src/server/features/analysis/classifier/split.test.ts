import { fnv1a, splitGroupKey, splitPart, TEST_BUCKETS } from './split';

describe('tuning / test split', () => {
  it('reduces file names to the subject, so near-copies share a key', () => {
    expect(splitGroupKey('people/kphotoalbum--jesper_2.jpg')).toBe('jesper');
    expect(splitGroupKey('kphotoalbum--jesper.jpg')).toBe('jesper');
    expect(splitGroupKey('animals/gcompris--farm_horse.jpg')).toBe('horse');
    expect(splitGroupKey('python3-skimage--motorcycle_left.jpg')).toBe('motorcycle');
    expect(splitGroupKey('gcompris--nagoya_background.jpg')).toBe('nagoya');
    expect(splitGroupKey('opencv--hfs-000.jpg')).toBe('hfs');
  });

  it('puts every member of a group on the same side', () => {
    for (const [a, b] of [
      ['kphotoalbum--donna.jpg', 'kphotoalbum--donna_2.jpg'],
      ['python3-skimage--motorcycle_left.jpg', 'python3-skimage--motorcycle_right.jpg'],
      ['gcompris--horse.jpg', 'jigzo--horse.jpg'],
    ]) {
      expect(splitPart(a)).toBe(splitPart(b));
    }
  });

  it('is a fixed function of the name (FNV-1a reference values) and sends about 30 % to test', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
    const names = Array.from(
      { length: 2000 },
      (_, i) => `pkg--subject${String.fromCharCode(97 + (i % 26))}${i.toString(36)}x.jpg`,
    );
    const share = names.filter((n) => splitPart(n) === 'test').length / names.length;
    expect(share).toBeGreaterThan(TEST_BUCKETS / 10 - 0.05);
    expect(share).toBeLessThan(TEST_BUCKETS / 10 + 0.05);
  });
});
