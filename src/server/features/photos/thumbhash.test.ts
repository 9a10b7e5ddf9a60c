import { readdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { rgbaToThumbHash as packageEncoder, thumbHashToRGBA } from 'thumbhash';
import { fromRoot } from '../../lib/paths';
import { THUMBHASH_INPUT } from './image-pipeline';
import { rgbaToThumbHash } from './thumbhash';

/**
 * A deterministic drawn image: gradients with pseudo-random grain in every channel, optionally
 * translucent. Grain everywhere, so no cosine term is exactly zero: in a symmetric drawing a zero
 * term sits exactly between two of the format's steps, and which one it gets is the package's
 * rounding noise (ours may pick the other; the placeholder differs by a fifteenth of that term's
 * scale).
 */
function drawn(w: number, h: number, seed: number, alpha: 'opaque' | 'grain' | 'clear-corner'): Uint8Array {
  const px = new Uint8Array(w * h * 4);
  let s = seed;
  const grain = (n: number) => ((s = (s * 1103515245 + 12345) % 2147483648) >> 16) % n;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      px[i] = Math.min(255, Math.round((215 * x) / Math.max(1, w - 1)) + grain(40));
      px[i + 1] = Math.min(255, Math.round((180 * y) / Math.max(1, h - 1)) + grain(70));
      px[i + 2] = (x + y) % 9 < 4 ? 200 + grain(50) : 25 + grain(40);
      px[i + 3] = alpha === 'opaque' ? 255 : alpha === 'grain' ? grain(256) : x < w / 3 && y < h / 3 ? grain(20) : 255;
    }
  }
  return px;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('the thumbhash encoder', () => {
  it('gives the package’s bytes for drawn images of every shape, with and without transparency', () => {
    const sizes: Array<[number, number]> = [
      [48, 36],
      [36, 48],
      [48, 48],
      [100, 75],
      [75, 100],
      [100, 100],
      [48, 7],
      [7, 48],
      [8, 8],
      [10, 9],
    ];
    let compared = 0;
    for (const [w, h] of sizes) {
      for (const alpha of ['opaque', 'grain', 'clear-corner'] as const) {
        for (const seed of [1, 2, 3]) {
          const px = drawn(w, h, seed, alpha);
          expect(hex(rgbaToThumbHash(w, h, px)), `${w}x${h} ${alpha} ${seed}`).toBe(hex(packageEncoder(w, h, px)));
          compared += 1;
        }
      }
    }
    expect(compared).toBe(90);
  });

  it('gives the package’s bytes for the demo photos at the size uploads use and at 100 px', async () => {
    const dir = fromRoot('assets/demo-photos');
    const photos = readdirSync(dir).filter((f) => f.endsWith('.jpg'));
    expect(photos.length).toBeGreaterThanOrEqual(10);
    for (const f of photos) {
      for (const size of [THUMBHASH_INPUT, 100]) {
        const { data, info } = await sharp(path.join(dir, f))
          .resize(size, size, { fit: 'inside' })
          .ensureAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true });
        expect(hex(rgbaToThumbHash(info.width, info.height, data)), `${f} at ${size} px`).toBe(
          hex(packageEncoder(info.width, info.height, data)),
        );
      }
    }
  });

  it('decodes a flat colour to the same placeholder as the package (whose bytes there are rounding noise)', () => {
    for (const [r, g, b, a] of [
      [200, 40, 90, 255],
      [0, 0, 0, 255],
      [255, 255, 255, 255],
      [30, 160, 220, 128],
    ]) {
      const px = new Uint8Array(40 * 30 * 4);
      for (let i = 0; i < px.length; i += 4) px.set([r!, g!, b!, a!], i);
      const ours = thumbHashToRGBA(rgbaToThumbHash(40, 30, px));
      const theirs = thumbHashToRGBA(packageEncoder(40, 30, px));
      expect([ours.w, ours.h]).toEqual([theirs.w, theirs.h]);
      let worst = 0;
      for (let i = 0; i < ours.rgba.length; i++) worst = Math.max(worst, Math.abs(ours.rgba[i]! - theirs.rgba[i]!));
      expect(worst).toBeLessThanOrEqual(1);
    }
  });

  it('refuses images larger than the format is meant for, as the package does', () => {
    expect(() => rgbaToThumbHash(101, 10, new Uint8Array(101 * 10 * 4))).toThrow(/doesn't fit/);
  });
});
