/**
 * Photo editor benchmark on a 12 MP original (4000 x 3000 JPEG):
 *  - preview: `POST /api/photo-filters/preview` with the render cache missing every time (a new
 *    intensity or filter each run), i.e. a real render from the ~1440 px preview derivative;
 *    p50 of 20, target <= 100 ms. Also the cached answer.
 *  - apply: `POST /api/photo-filters/apply` (full-size render, derivatives, blob writes, the
 *    version row), target <= 700 ms (median).
 * Both beside sharp's plain resize of the same file, as the machine's yardstick.
 *
 *   npx tsx bench/filters.bench.ts [applyRuns=5]
 */
import sharp from 'sharp';
import { FILTER_IDS } from '../src/domain/filters.js';
import { createTestApp, signUp } from '../src/server/test/harness.js';

const APPLY_RUNS = Number(process.argv[2] ?? 5);
const PREVIEW_RUNS = 20;
const TARGET_PREVIEW_MS = 100;
const TARGET_APPLY_MS = 700;

/** A photo-like 12 MP JPEG: smooth gradients plus fine grain, quality 90. */
async function twelveMegapixelJpeg(): Promise<Buffer> {
  const w = 4000;
  const h = 3000;
  const px = Buffer.alloc(w * h * 3);
  const grain = await sharp({
    create: { width: w, height: h, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 12, sigma: 12 } },
  })
    .raw()
    .toBuffer();
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      const g = (c: number, v: number) => Math.max(0, Math.min(255, v + grain[i + c]! - 12));
      px[i] = g(0, (x * 255) / w);
      px[i + 1] = g(1, (y * 255) / h);
      px[i + 2] = g(2, 128 + 100 * Math.sin((x + y) / 150));
    }
  }
  return sharp(px, { raw: { width: w, height: h, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const ms = (n: number) => `${n.toFixed(0)} ms`;

async function time<T>(f: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const r = await f();
  return [performance.now() - t0, r];
}

async function main() {
  const jpeg = await twelveMegapixelJpeg();
  console.log(`12 MP JPEG: ${(jpeg.length / 1048576).toFixed(1)} MB`);
  const t = await createTestApp({ maxUploadBytes: 64 * 1024 * 1024 });
  try {
    const { cookie } = await signUp(t.app);
    const boundary = '----eyevubench';
    const up = await t.app.inject({
      method: 'POST',
      url: '/api/photos',
      headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="photos"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
        ),
        jpeg,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    });
    if (up.statusCode !== 201) throw new Error(`upload failed: ${up.body}`);
    const photoId = up.json().results[0].photo.id as string;
    const post = (url: string, body: object) =>
      t.app.inject({ method: 'POST', url, headers: { cookie }, payload: body });

    // Yardsticks: sharp alone, same file.
    const resizeTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      resizeTimes.push((await time(() => sharp(jpeg).resize(1440, 1440, { fit: 'inside' }).jpeg().toBuffer()))[0]);
    }
    const fullTimes: number[] = [];
    for (let i = 0; i < 3; i++) fullTimes.push((await time(() => sharp(jpeg).jpeg({ quality: 85 }).toBuffer()))[0]);

    // Preview: every run a combination not seen before (cache miss), cycling filters and intensities.
    await post('/api/photo-filters/preview', { photoId, filterName: 'vintage', intensity: 50 }); // warm-up
    const previews: number[] = [];
    for (let i = 0; i < PREVIEW_RUNS; i++) {
      const body = { photoId, filterName: FILTER_IDS[i % 6]!, intensity: 60 + 10 * Math.floor(i / 6) };
      const [d, res] = await time(() => post('/api/photo-filters/preview', body));
      if (res.statusCode !== 200 || res.headers['x-render-cache'] !== 'miss') throw new Error(`preview: ${res.body}`);
      previews.push(d);
    }
    const cached: number[] = [];
    for (let i = 0; i < PREVIEW_RUNS; i++) {
      const [d, res] = await time(() =>
        post('/api/photo-filters/preview', { photoId, filterName: 'vintage', intensity: 60 }),
      );
      if (res.headers['x-render-cache'] !== 'hit') throw new Error('expected a cache hit');
      cached.push(d);
    }

    const applies: number[] = [];
    for (let i = 0; i < APPLY_RUNS; i++) {
      const body = { photoId, filterName: FILTER_IDS[i % 6]!, intensity: 100 };
      const [d, res] = await time(() => post('/api/photo-filters/apply', body));
      if (res.statusCode !== 200) throw new Error(`apply: ${res.body}`);
      applies.push(d);
    }

    const p50 = pct(previews, 0.5);
    const applyMed = pct(applies, 0.5);
    console.log(`sharp plain resize to 1440 px (median of 5):      ${ms(pct(resizeTimes, 0.5))}`);
    console.log(`sharp plain full-size JPEG re-encode (median of 3): ${ms(pct(fullTimes, 0.5))}`);
    console.log(
      `preview, render (p50 / p90 of ${PREVIEW_RUNS}):   ${ms(p50)} / ${ms(pct(previews, 0.9))}  target <= ${TARGET_PREVIEW_MS} ms  ${p50 <= TARGET_PREVIEW_MS ? 'OK' : 'OVER'}`,
    );
    console.log(`preview, cached (p50 of ${PREVIEW_RUNS}):           ${ms(pct(cached, 0.5))}`);
    console.log(
      `apply, full 12 MP (median of ${APPLY_RUNS}, max ${ms(Math.max(...applies))}): ${ms(applyMed)}  target <= ${TARGET_APPLY_MS} ms  ${applyMed <= TARGET_APPLY_MS ? 'OK' : 'OVER'}`,
    );
  } finally {
    await t.close();
  }
}

await main();
