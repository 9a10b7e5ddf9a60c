/**
 * Pinch zoom and pan for the photo viewer, as pure functions over a view transform.
 *
 * The image box is drawn with `transform: translate(x, y) scale(scale)` about its centre `c` (client
 * coordinates), so a content point `p` (offset from the centre, unscaled) appears at `c + t + s * p`.
 */
export interface Point {
  x: number;
  y: number;
}
export interface ZoomView {
  scale: number;
  x: number;
  y: number;
}
export interface Box {
  width: number;
  height: number;
}

export const MIN_SCALE = 1;
export const MAX_SCALE = 4;
export const IDENTITY: ZoomView = { scale: 1, x: 0, y: 0 };

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const mid = (a: Point, b: Point): Point => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
const dist = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);

/**
 * The view after two fingers moved from `from` to `to`: the scale follows the change in distance
 * between them (clamped to [MIN_SCALE, MAX_SCALE]) and the content point that was under the
 * fingers' midpoint stays under their new midpoint (zoom centred on the fingers, plus pan).
 */
export function pinchView(start: ZoomView, from: [Point, Point], to: [Point, Point], centre: Point): ZoomView {
  const d0 = dist(from[0], from[1]);
  const ratio = d0 > 0 ? dist(to[0], to[1]) / d0 : 1;
  const scale = clamp(start.scale * ratio, MIN_SCALE, MAX_SCALE);
  const k = scale / start.scale;
  const m0 = mid(from[0], from[1]);
  const m1 = mid(to[0], to[1]);
  return {
    scale,
    x: m1.x - centre.x - k * (m0.x - centre.x - start.x),
    y: m1.y - centre.y - k * (m0.y - centre.y - start.y),
  };
}

/** One finger dragging a zoomed image. */
export function panView(start: ZoomView, dx: number, dy: number): ZoomView {
  return { scale: start.scale, x: start.x + dx, y: start.y + dy };
}

/**
 * Keeps the scaled image covering its box (no empty gap dragged into view): the translation is at
 * most half of the overflow on each axis; at scale 1 the view is the identity.
 */
export function clampView(view: ZoomView, box: Box): ZoomView {
  const scale = clamp(view.scale, MIN_SCALE, MAX_SCALE);
  if (scale <= MIN_SCALE + 1e-3) return IDENTITY;
  const mx = ((scale - 1) * box.width) / 2;
  const my = ((scale - 1) * box.height) / 2;
  return { scale, x: clamp(view.x, -mx, mx), y: clamp(view.y, -my, my) };
}

export const viewTransform = (v: ZoomView) => `translate(${v.x}px, ${v.y}px) scale(${v.scale})`;
