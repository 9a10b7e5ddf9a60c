import { describe, expect, it } from 'vitest';
import type { RgbImage } from '../../src/server/features/analysis/vision/embedder';
import { subjectBox, subjectInput } from './subject-box';

function canvas(width: number, height: number, fill: (x: number, y: number) => [number, number, number]): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set(fill(x, y), (y * width + x) * 3);
  }
  return { data, width, height };
}

/** A dark-red object drawn on white (JPEG-like noise of a few levels on the white). */
function objectOnWhite(width: number, height: number, obj: { x: number; y: number; w: number; h: number }): RgbImage {
  return canvas(width, height, (x, y) =>
    x >= obj.x && x < obj.x + obj.w && y >= obj.y && y < obj.y + obj.h
      ? [140, 30, 20]
      : [255 - ((x * 7 + y * 3) % 6), 255 - ((x + y) % 4), 253],
  );
}

/** Extent of the pixels that are not white. */
function extent(img: RgbImage): { w: number; h: number } {
  let x0 = img.width;
  let x1 = -1;
  let y0 = img.height;
  let y1 = -1;
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const s = (y * img.width + x) * 3;
      if (img.data[s]! < 200) {
        x0 = Math.min(x0, x);
        x1 = Math.max(x1, x);
        y0 = Math.min(y0, y);
        y1 = Math.max(y1, y);
      }
    }
  }
  return { w: x1 - x0 + 1, h: y1 - y0 + 1 };
}

describe('subjectBox', () => {
  it('gives an object drawn on white a tight square box with a small margin', () => {
    const box = subjectBox(objectOnWhite(320, 240, { x: 200, y: 40, w: 60, h: 100 }));
    expect(box).toBeDefined();
    const b = box!;
    expect(b.width).toBe(b.height);
    // The longer side (100 px) plus 6 % each side.
    expect(b.width).toBeGreaterThanOrEqual(110);
    expect(b.width).toBeLessThanOrEqual(114);
    // Centred on the object, and containing it.
    expect(b.left).toBeLessThanOrEqual(200);
    expect(b.left + b.width).toBeGreaterThanOrEqual(260);
    expect(b.top).toBeLessThanOrEqual(40);
    expect(b.top + b.height).toBeGreaterThanOrEqual(140);
    expect(Math.abs(b.left + b.width / 2 - 230)).toBeLessThanOrEqual(1);
    expect(Math.abs(b.top + b.height / 2 - 90)).toBeLessThanOrEqual(1);
  });

  it('lets the square box pass the edge of a wide cut-out whose subject fills it', () => {
    // A car-like stamp: the subject spans the whole width, white above and below.
    const b = subjectBox(objectOnWhite(200, 80, { x: 0, y: 25, w: 200, h: 30 }))!;
    expect(b).toBeDefined();
    expect(b.width).toBe(b.height);
    expect(b.width).toBeGreaterThanOrEqual(200);
    expect(b.top).toBeLessThan(0);
    expect(b.top + b.height).toBeGreaterThan(80);
  });

  it('leaves a photo with no plain border whole', () => {
    // Scenery reaching every edge: a textured gradient, no white.
    const photo = canvas(320, 213, (x, y) => [(x * 5 + y) % 200, (y * 3) % 180, (x + y * 2) % 160]);
    expect(subjectBox(photo)).toBeUndefined();
  });

  it('leaves a photo whole when only part of its border is white (sky, snow at one edge)', () => {
    // White across the top third; scenery below reaches the other three edges.
    const photo = canvas(300, 200, (x, y) => (y < 60 ? [250, 250, 250] : [40 + (x % 50), 90, 30 + (y % 40)]));
    expect(subjectBox(photo)).toBeUndefined();
  });

  it('ignores an all-white image and a speck', () => {
    expect(subjectBox(canvas(100, 100, () => [255, 255, 255]))).toBeUndefined();
    expect(subjectBox(objectOnWhite(300, 300, { x: 150, y: 150, w: 3, h: 3 }))).toBeUndefined();
  });
});

describe('subjectInput', () => {
  it('embeds a wide cut-out without squashing it', async () => {
    // 4:1 object; the whole-photo input squashes a 200x80 photo to a square, so the object's
    // height-to-width ratio would be 0.25 * 200 / 80 = 0.625 there.
    const input = await subjectInput(objectOnWhite(200, 80, { x: 10, y: 25, w: 160, h: 40 }), 224);
    expect(input).toBeDefined();
    expect(input!.width).toBe(224);
    expect(input!.height).toBe(224);
    const e = extent(input!);
    expect(e.h / e.w).toBeGreaterThan(0.22);
    expect(e.h / e.w).toBeLessThan(0.28);
    // The subject fills the square but for the margin.
    expect(e.w).toBeGreaterThan(190);
  });

  it('gives nothing for an ordinary photo (the engine embeds it whole)', async () => {
    const photo = canvas(120, 90, (x, y) => [(x * 5 + y) % 200, (y * 3) % 180, 60]);
    expect(await subjectInput(photo, 224)).toBeUndefined();
  });
});
