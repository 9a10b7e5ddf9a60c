/**
 * The ThumbHash of an RGBA image (the format of the `thumbhash` package, which the web decodes),
 * encoded with a separable cosine transform: each row is transformed once per horizontal frequency,
 * then the columns of those sums once per term, instead of a pass over every pixel for every term.
 * That is about a quarter of the arithmetic, in typed arrays. It matters because the encoder runs
 * once per upload, mostly before V8 has optimised it: unoptimised code allocates a heap number
 * for every floating-point result, and the package's loops made megabytes of garbage per upload
 * on the server's heap. An opaque image (every upload's) is summed in small integers, which
 * allocate nothing even unoptimised. The bytes are the package's (tested on photos and drawn
 * images): the sums differ from its own only by rounding, far below what the format keeps. The
 * exception is a term that is exactly zero (a symmetric drawing, an image a few pixels wide): it
 * lies halfway between two of the format's steps, and the package's rounding noise picks one.
 */

/** The largest side the format is meant for (the package refuses more). */
const MAX_SIDE = 100;
/** A cosine as an integer: 2^22 is 1. */
const COS_ONE = 2 ** 22;
const COS_SPLIT = 2 ** 11;

interface Channel {
  /** Row sums: for horizontal frequency cx, row y at [cx * h + y]. */
  rows: Float64Array;
  nx: number;
  ny: number;
}

/** The DC term, the AC terms normalised to 0..1, and their scale, as the format stores them. */
function terms(c: Channel, w: number, h: number, cosY: Float64Array) {
  const { rows, nx, ny } = c;
  let dc = 0;
  let scale = 0;
  const ac: number[] = [];
  for (let cy = 0; cy < ny; cy++) {
    for (let cx = 0; cx * ny < nx * (ny - cy); cx++) {
      let f = 0;
      const r = cx * h;
      const t = cy * h;
      for (let y = 0; y < h; y++) f += rows[r + y]! * cosY[t + y]!;
      f /= w * h;
      if (cx || cy) {
        ac.push(f);
        scale = Math.max(scale, Math.abs(f));
      } else dc = f;
    }
  }
  if (scale) for (let i = 0; i < ac.length; i++) ac[i] = 0.5 + (0.5 / scale) * ac[i]!;
  return { dc, ac, scale };
}

/** cos(pi / n * k * (i + 0.5)) for k < count, i < n, at [k * n + i]: the package's expression. */
function cosines(n: number, count: number): Float64Array {
  const out = new Float64Array(count * n);
  for (let k = 0; k < count; k++) for (let i = 0; i < n; i++) out[k * n + i] = Math.cos((Math.PI / n) * k * (i + 0.5));
  return out;
}

/**
 * Row sums of an image without transparency, in integers: L, P and Q as whole numbers (R+G+B,
 * R+G-2B, R-G) times each cosine split into a high and a low 11-bit part (22 bits in all, so a
 * row's sum differs from the floating-point one by about one part in ten million). Small integer
 * arithmetic allocates nothing even before the code is optimised.
 */
function opaqueRows(w: number, h: number, rgba: Uint8Array, L: Channel, P: Channel, Q: Channel) {
  const nx = L.nx; // at least P's and Q's 3
  const hi = new Int32Array(nx * w);
  const lo = new Int32Array(nx * w);
  const cos = cosines(w, nx);
  for (let k = 0; k < hi.length; k++) {
    const c = Math.round(cos[k]! * COS_ONE);
    hi[k] = Math.floor(c / COS_SPLIT);
    lo[k] = c - hi[k]! * COS_SPLIT;
  }
  const l = new Int32Array(w);
  const p = new Int32Array(w);
  const q = new Int32Array(w);
  const sum = (v: Int32Array, row: number) => {
    let a = 0;
    let b = 0;
    for (let x = 0; x < w; x++) {
      a += v[x]! * hi[row + x]!;
      b += v[x]! * lo[row + x]!;
    }
    return (a * COS_SPLIT + b) / COS_ONE;
  };
  for (let y = 0; y < h; y++) {
    for (let x = 0, j = y * w * 4; x < w; x++, j += 4) {
      const r = rgba[j]!;
      const g = rgba[j + 1]!;
      const b = rgba[j + 2]!;
      l[x] = r + g + b;
      p[x] = r + g - 2 * b;
      q[x] = r - g;
    }
    for (let cx = 0; cx < nx; cx++) L.rows[cx * h + y] = sum(l, cx * w) / 765;
    for (let cx = 0; cx < 3; cx++) {
      P.rows[cx * h + y] = sum(p, cx * w) / 510;
      Q.rows[cx * h + y] = sum(q, cx * w) / 255;
    }
  }
}

/** Row sums of an image with transparency: each pixel composited over the average colour first. */
function compositedRows(
  w: number,
  h: number,
  rgba: Uint8Array,
  [avgR, avgG, avgB]: [number, number, number],
  L: Channel,
  P: Channel,
  Q: Channel,
  A: Channel | null,
) {
  const cosX = cosines(w, Math.max(L.nx, A ? A.nx : 0));
  const lRows = L.rows;
  const pRows = P.rows;
  const qRows = Q.rows;
  const aRows = A ? A.rows : null;
  const lNx = L.nx;
  for (let y = 0, j = 0; y < h; y++) {
    for (let x = 0; x < w; x++, j += 4) {
      const alpha = rgba[j + 3]! / 255;
      const r = avgR * (1 - alpha) + (alpha / 255) * rgba[j]!;
      const g = avgG * (1 - alpha) + (alpha / 255) * rgba[j + 1]!;
      const b = avgB * (1 - alpha) + (alpha / 255) * rgba[j + 2]!;
      const l = (r + g + b) / 3;
      const p = (r + g) / 2 - b;
      const q = r - g;
      for (let cx = 0; cx < lNx; cx++) lRows[cx * h + y] += l * cosX[cx * w + x]!;
      for (let cx = 0; cx < 3; cx++) {
        const c = cosX[cx * w + x]!;
        pRows[cx * h + y] += p * c;
        qRows[cx * h + y] += q * c;
      }
      if (aRows) for (let cx = 0; cx < 5; cx++) aRows[cx * h + y] += alpha * cosX[cx * w + x]!;
    }
  }
}

export function rgbaToThumbHash(w: number, h: number, rgba: Uint8Array): Uint8Array {
  if (w > MAX_SIDE || h > MAX_SIDE) throw new Error(`${w}x${h} doesn't fit in ${MAX_SIDE}x${MAX_SIDE}`);
  const n = w * h;
  let opaque = true;
  for (let j = 3; j < n * 4; j += 4) if (rgba[j] !== 255) opaque = false;
  // The average colour, which transparent pixels are composited over (an opaque image needs none).
  let avgR = 0;
  let avgG = 0;
  let avgB = 0;
  let avgA = opaque ? n : 0;
  if (!opaque) {
    for (let j = 0; j < n * 4; j += 4) {
      const alpha = rgba[j + 3]! / 255;
      avgR += (alpha / 255) * rgba[j]!;
      avgG += (alpha / 255) * rgba[j + 1]!;
      avgB += (alpha / 255) * rgba[j + 2]!;
      avgA += alpha;
    }
    if (avgA) {
      avgR /= avgA;
      avgG /= avgA;
      avgB /= avgA;
    }
  }
  const hasAlpha = avgA < n;
  const lLimit = hasAlpha ? 5 : 7; // fewer luminance terms when alpha takes room
  const lx = Math.max(1, Math.round((lLimit * w) / Math.max(w, h)));
  const ly = Math.max(1, Math.round((lLimit * h) / Math.max(w, h)));
  const channel = (nx: number, ny: number): Channel => ({ rows: new Float64Array(nx * h), nx, ny });
  const L = channel(Math.max(3, lx), Math.max(3, ly));
  const P = channel(3, 3);
  const Q = channel(3, 3);
  const A = hasAlpha ? channel(5, 5) : null;
  const cosY = cosines(h, Math.max(L.ny, A ? A.ny : 0));
  if (opaque) opaqueRows(w, h, rgba, L, P, Q);
  else compositedRows(w, h, rgba, [avgR, avgG, avgB], L, P, Q, A);

  const l = terms(L, w, h, cosY);
  const p = terms(P, w, h, cosY);
  const q = terms(Q, w, h, cosY);
  const a = A ? terms(A, w, h, cosY) : null;

  const isLandscape = w > h;
  const header24 =
    Math.round(63 * l.dc) |
    (Math.round(31.5 + 31.5 * p.dc) << 6) |
    (Math.round(31.5 + 31.5 * q.dc) << 12) |
    (Math.round(31 * l.scale) << 18) |
    (Number(hasAlpha) << 23);
  const header16 =
    (isLandscape ? ly : lx) |
    (Math.round(63 * p.scale) << 3) |
    (Math.round(63 * q.scale) << 9) |
    (Number(isLandscape) << 15);
  const acStart = a ? 6 : 5;
  const acs = a ? [l.ac, p.ac, q.ac, a.ac] : [l.ac, p.ac, q.ac];
  const acCount = acs.reduce((s, x) => s + x.length, 0);
  const hash = new Uint8Array(acStart + ((acCount + 1) >> 1));
  hash.set([header24 & 255, (header24 >> 8) & 255, header24 >> 16, header16 & 255, header16 >> 8]);
  if (a) hash[5] = Math.round(15 * a.dc) | (Math.round(15 * a.scale) << 4);
  let index = 0;
  for (const ac of acs) {
    for (const f of ac) {
      hash[acStart + (index >> 1)]! |= Math.round(15 * f) << ((index & 1) << 2);
      index++;
    }
  }
  return hash;
}
