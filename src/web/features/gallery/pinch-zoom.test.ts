import { clampView, IDENTITY, MAX_SCALE, panView, pinchView, viewTransform } from './pinch-zoom';

const centre = { x: 200, y: 300 };
/** Where a content point (offset from the centre) appears on screen for a view. */
const screenOf = (v: { scale: number; x: number; y: number }, p: { x: number; y: number }) => ({
  x: centre.x + v.x + v.scale * p.x,
  y: centre.y + v.y + v.scale * p.y,
});

describe('pinchView', () => {
  it('scales by the change in finger distance', () => {
    const v = pinchView(
      IDENTITY,
      [
        { x: 150, y: 300 },
        { x: 250, y: 300 },
      ],
      [
        { x: 100, y: 300 },
        { x: 300, y: 300 },
      ],
      centre,
    );
    expect(v).toEqual({ scale: 2, x: 0, y: 0 });
  });

  it('keeps the content point under the fingers fixed when pinching off-centre', () => {
    const from: [{ x: number; y: number }, { x: number; y: number }] = [
      { x: 40, y: 100 },
      { x: 80, y: 140 },
    ];
    const to: typeof from = [
      { x: 20, y: 80 },
      { x: 100, y: 160 },
    ];
    const v = pinchView(IDENTITY, from, to, centre);
    expect(v.scale).toBeCloseTo(2);
    // The midpoint (60, 120) was content point (-140, -180) at scale 1; it is still under (60, 120).
    const s = screenOf(v, { x: -140, y: -180 });
    expect(s.x).toBeCloseTo(60);
    expect(s.y).toBeCloseTo(120);
  });

  it('composes with an existing zoom and follows a moving midpoint (pan while pinching)', () => {
    const start = { scale: 2, x: 30, y: -10 };
    const from: [{ x: number; y: number }, { x: number; y: number }] = [
      { x: 100, y: 200 },
      { x: 200, y: 200 },
    ];
    const to: typeof from = [
      { x: 120, y: 250 },
      { x: 270, y: 250 },
    ];
    const v = pinchView(start, from, to, centre);
    expect(v.scale).toBeCloseTo(3);
    // Content under the start midpoint (150, 200): p = (m0 - c - t) / s.
    const p = { x: (150 - 200 - 30) / 2, y: (200 - 300 + 10) / 2 };
    const s = screenOf(v, p);
    expect(s.x).toBeCloseTo(195);
    expect(s.y).toBeCloseTo(250);
  });

  it('clamps the scale and ignores a zero starting distance', () => {
    const big = pinchView(
      IDENTITY,
      [
        { x: 199, y: 300 },
        { x: 201, y: 300 },
      ],
      [
        { x: 0, y: 300 },
        { x: 400, y: 300 },
      ],
      centre,
    );
    expect(big.scale).toBe(MAX_SCALE);
    const same = pinchView(
      IDENTITY,
      [
        { x: 10, y: 10 },
        { x: 10, y: 10 },
      ],
      [
        { x: 10, y: 10 },
        { x: 30, y: 10 },
      ],
      centre,
    );
    expect(same.scale).toBe(1);
  });
});

describe('panView and clampView', () => {
  it('pans by the drag and keeps the image covering its box', () => {
    const box = { width: 400, height: 600 };
    expect(panView({ scale: 2, x: 10, y: 0 }, 50, -20)).toEqual({ scale: 2, x: 60, y: -20 });
    expect(clampView({ scale: 2, x: 500, y: -900 }, box)).toEqual({ scale: 2, x: 200, y: -300 });
    expect(clampView({ scale: 1, x: 50, y: 50 }, box)).toEqual(IDENTITY);
    expect(clampView({ scale: 0.5, x: 0, y: 0 }, box)).toEqual(IDENTITY);
  });

  it('formats a CSS transform', () => {
    expect(viewTransform({ scale: 1.5, x: 0, y: 0 })).toBe('translate(0px, 0px) scale(1.5)');
  });
});
