import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  closeHeicThread,
  decodeHeic,
  HEIC_DECODE_LIMIT_MS,
  HEIC_THREAD_ATTEMPTS,
  HEIC_TOO_SLOW,
  HeicDecodeError,
  HeicThreadError,
  heicThreadStats,
} from './heic';
import { stopHeicThreadsUnderPhoto } from '../test/heic-stops';

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

  it('refuses a photo still decoding past its time limit, stops its thread, and decodes the next on a fresh one', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const slow = decodeHeic(HEIC, 1e6).catch((e: unknown) => e);
      const after = decodeHeic(HEIC, 1e6);
      // Before the thread can answer (its reply comes on a later turn of the event loop).
      vi.advanceTimersByTime(HEIC_DECODE_LIMIT_MS);
      const err = await slow;
      expect(err).toBeInstanceOf(HeicDecodeError);
      expect((err as Error).message).toBe(HEIC_TOO_SLOW);
      vi.useRealTimers();
      expect((await after).width).toBe(96);
    } finally {
      vi.useRealTimers();
    }
  });

  it('fails what is in flight when the thread stops, and starts a fresh thread for the next photo', async () => {
    const pending = decodeHeic(HEIC, 1e6).catch((e: unknown) => e);
    await closeHeicThread();
    expect(String(await pending)).toMatch(/closed/);
    const d = await decodeHeic(HEIC, 1e6);
    expect(d.width).toBe(96);
  });

  it("gives a photo a fresh thread each time one stops under it, and fails it as the server's fault after the last", async () => {
    await closeHeicThread();
    const survives = decodeHeic(HEIC, 1e6);
    await stopHeicThreadsUnderPhoto(HEIC_THREAD_ATTEMPTS - 1);
    expect((await survives).width).toBe(96);

    await closeHeicThread();
    const fails = decodeHeic(HEIC, 1e6).catch((e: unknown) => e);
    await stopHeicThreadsUnderPhoto(HEIC_THREAD_ATTEMPTS);
    const err = await fails;
    expect(err).toBeInstanceOf(HeicThreadError);
    expect(String(err)).toMatch(new RegExp(`HEIC thread stopped ${HEIC_THREAD_ATTEMPTS} times`));
    // The queue goes on: the next photo gets a thread of its own.
    expect((await decodeHeic(HEIC, 1e6)).width).toBe(96);
  });
});
