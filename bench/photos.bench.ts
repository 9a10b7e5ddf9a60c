/**
 * Ingest benchmark: a 12 MP JPEG through `POST /api/photos` (multipart, sniffing, derivatives,
 * hashing, blob writes, the row insert) against sharp making the same derivatives alone, in the
 * same run on the same machine. Prints the ratio; the target is <= 1.3.
 *
 *   npx tsx bench/photos.bench.ts [runs=8]
 */
import sharp from 'sharp';
import { makeDerivatives } from '../src/server/features/photos/image-pipeline.js';
import { createTestApp, signUp } from '../src/server/test/harness.js';

const RUNS = Number(process.argv[2] ?? 8);
const TARGET = 1.3;

/** A photo-like 12 MP JPEG (4000 x 3000): smooth gradients plus fine grain, quality 90. */
async function twelveMegapixelJpeg(): Promise<Buffer> {
  const w = 4000;
  const h = 3000;
  const gradient = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      gradient[i] = (x * 255) / w;
      gradient[i + 1] = (y * 255) / h;
      gradient[i + 2] = 128 + 100 * Math.sin((x + y) / 150);
    }
  }
  const grain = await sharp({
    create: { width: w, height: h, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 0, sigma: 12 } },
  })
    .raw()
    .toBuffer();
  for (let i = 0; i < gradient.length; i++) gradient[i] = Math.max(0, Math.min(255, gradient[i]! + grain[i]! - 12));
  return sharp(gradient, { raw: { width: w, height: h, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

function multipart(name: string, bytes: Buffer) {
  const boundary = '----eyevubench';
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="photos"; filename="${name}"\r\nContent-Type: image/jpeg\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const jpeg = await twelveMegapixelJpeg();
  console.log(`12 MP JPEG: ${(jpeg.length / 1048576).toFixed(1)} MB, ${RUNS} runs each (median)`);
  const t = await createTestApp({ maxUploadBytes: 64 * 1024 * 1024 });
  try {
    const { cookie } = await signUp(t.app);
    // Each upload must be new bytes, or the blob store's de-duplication would flatter the API.
    const variants = await Promise.all(
      Array.from({ length: RUNS + 1 }, (_, i) =>
        sharp(jpeg)
          .composite([{ input: { create: { width: 8, height: 8, channels: 3, background: { r: i, g: 0, b: 0 } } } }])
          .jpeg({ quality: 90 })
          .toBuffer(),
      ),
    );
    // Warm both paths once.
    await makeDerivatives(variants[0]!);
    const warm = multipart('warm.jpg', variants[0]!);
    await t.app.inject({
      method: 'POST',
      url: '/api/photos',
      headers: { ...warm.headers, cookie },
      payload: warm.payload,
    });

    const alone: number[] = [];
    const api: number[] = [];
    for (let i = 1; i <= RUNS; i++) {
      // Interleaved, so drift in machine load affects both sides alike.
      let s = performance.now();
      await makeDerivatives(variants[i]!);
      alone.push(performance.now() - s);

      const body = multipart(`bench-${i}.jpg`, variants[i]!);
      s = performance.now();
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/photos',
        headers: { ...body.headers, cookie },
        payload: body.payload,
      });
      api.push(performance.now() - s);
      if (res.statusCode !== 201) throw new Error(`upload failed ${res.statusCode}: ${res.body}`);
    }
    const a = median(alone);
    const b = median(api);
    const ratio = b / a;
    console.log(`sharp derivatives alone (preview 1440 + thumbnail 400 WebP + thumbhash): ${a.toFixed(0)} ms`);
    console.log(`POST /api/photos end to end:                                        ${b.toFixed(0)} ms`);
    console.log(`ratio ${ratio.toFixed(2)} (target <= ${TARGET}) ${ratio <= TARGET ? 'OK' : 'OVER'}`);
  } finally {
    await t.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
