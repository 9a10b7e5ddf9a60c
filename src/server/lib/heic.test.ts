import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { closeHeicThread, decodeHeic, HeicDecodeError, heicThreadStats, heicThreadWorker } from './heic';

/** 96 x 64, HEVC-coded: this sharp cannot decode it, so every decode here is libheif's. */
const HEIC = readFileSync(new URL('../../../e2e/fixtures/iphone-sample.heic', import.meta.url));
const libheifLoadedHere = () =>
  Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('libheif-bundle'));

describe('HEIC decoding', () => {
  afterAll(() => closeHeicThread());

  it('decodes in its own thread: the HTTP thread never loads the WASM decoder', async () => {
    const before = heicThreadStats().decoded;
    const d = await decodeHeic(HEIC, 1e6);
    expect([d.width, d.height, d.channels, d.data.length]).toEqual([96, 64, 4, 96 * 64 * 4]);
    // A red-to-green gradient, not an empty frame.
    const reds = [d.data[0]!, d.data[(96 - 1) * 4]!];
    expect(Math.abs(reds[0] - reds[1])).toBeGreaterThan(150);
    expect(heicThreadStats().decoded).toBe(before + 1);
    expect(libheifLoadedHere()).toBe(false);
  });

  it('refuses a photo over the pixel limit from its header, with the reason', async () => {
    const err = await decodeHeic(HEIC, 96 * 64 - 1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HeicDecodeError);
    expect((err as HeicDecodeError).tooLarge).toBe(true);
  });

  it('takes photos one at a time, in order, and keeps the caller its bytes', async () => {
    const copy = Buffer.from(HEIC);
    const all = await Promise.all(
      [decodeHeic(copy, 1e6), decodeHeic(copy, 10), decodeHeic(copy, 1e6)].map((p) => p.catch((e: unknown) => e)),
    );
    expect(all.map((r) => (r instanceof HeicDecodeError ? 'refused' : (r as { width: number }).width))).toEqual([
      96,
      'refused',
      96,
    ]);
    expect(copy.equals(HEIC)).toBe(true);
    expect(heicThreadStats()).toMatchObject({ running: 0, queued: 0 });
  });

  it('fails what is in flight when the thread stops, and starts a fresh thread for the next photo', async () => {
    const pending = decodeHeic(HEIC, 1e6).catch((e: unknown) => e);
    await closeHeicThread();
    expect(String(await pending)).toMatch(/closed/);
    const d = await decodeHeic(HEIC, 1e6);
    expect(d.width).toBe(96);
  });

  it('gives a photo a second thread when the first stops under it, and fails it after a second stop', async () => {
    await closeHeicThread();
    const once = decodeHeic(HEIC, 1e6);
    const first = heicThreadWorker()!;
    await first.terminate();
    expect((await once).width).toBe(96);

    await closeHeicThread();
    const twice = decodeHeic(HEIC, 1e6).catch((e: unknown) => e);
    const a = heicThreadWorker()!;
    await a.terminate();
    await vi.waitFor(() => expect(heicThreadWorker()).not.toBe(a));
    await heicThreadWorker()!.terminate();
    expect(String(await twice)).toMatch(/HEIC thread stopped/);
  });
});
