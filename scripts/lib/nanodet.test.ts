import { classMaxima, mapChannelMeans } from './nanodet';

describe("NanoDet's pooled features", () => {
  it('averages each channel of a channels-last map', () => {
    // [1, 2, 2, 3]: 2 x 2 positions, 3 channels.
    const map = Float32Array.from([1, 10, 0, 3, 20, 0, 5, 30, 0, 7, 40, 4]);
    expect(Array.from(mapChannelMeans(map, [1, 2, 2, 3], 3))).toEqual([4, 25, 1]);
  });

  it('averages each channel of a channels-first map', () => {
    // [1, 3, 2, 2]: the same values as above, channel by channel.
    const map = Float32Array.from([1, 3, 5, 7, 10, 20, 30, 40, 0, 0, 0, 4]);
    expect(Array.from(mapChannelMeans(map, [1, 3, 2, 2], 3))).toEqual([4, 25, 1]);
  });

  it('refuses a map with no axis of the expected channel count', () => {
    expect(() => mapChannelMeans(new Float32Array(8), [1, 2, 2, 2], 3)).toThrow(/no axis of 3 channels/);
  });

  it("keeps each class's highest score over the anchors", () => {
    // 3 anchors x 2 classes, row-major.
    expect(Array.from(classMaxima(Float32Array.from([0.1, 0.7, 0.9, 0.2, 0.3, 0.6]), 2))).toEqual([
      Float32Array.from([0.9])[0],
      Float32Array.from([0.7])[0],
    ]);
  });
});
