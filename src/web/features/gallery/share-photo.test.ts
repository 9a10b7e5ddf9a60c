// @vitest-environment jsdom
import { errorMessage } from '../../lib/api';
import { SHARE_STALL_MS, sharePhoto } from './share-photo';
import { testPhoto } from './test-photos';

/** A browser that can share files; `shared` collects what it was given. */
function sharingNavigator() {
  const shared: File[] = [];
  const nav = {
    canShare: () => true,
    share: async ({ files }: { files: File[] }) => void shared.push(...files),
  } as unknown as Navigator;
  return { nav, shared };
}

/** A file answered at once, its bytes then coming as `send` pushes them (never ending unless told). */
function answerInParts() {
  let push!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (push = c) });
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => new Response(body, { headers: { 'content-type': 'image/png' } })),
  );
  return { send: (n: number) => push.enqueue(new Uint8Array(n)), end: () => push.close() };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('sharePhoto', () => {
  it('gives up on a file that never answers after SHARE_STALL_MS, as a lost connection', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(() => new Promise<Response>(() => {})),
    );
    const { nav, shared } = sharingNavigator();
    const outcome = sharePhoto(testPhoto('p1', 'Beach'), nav);
    const failed = expect(outcome).rejects.toBeInstanceOf(TypeError);
    await vi.advanceTimersByTimeAsync(SHARE_STALL_MS - 1);
    let settled = false;
    void outcome.catch(() => void (settled = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await failed;
    // Told in the 'Share failed' toast as every network failure is.
    expect(errorMessage(await outcome.catch((e: unknown) => e), 'The photo could not be shared.')).toBe(
      'Network error. Please try again.',
    );
    expect(shared).toHaveLength(0);
  });

  it('gives up on a file whose bytes stop coming half-way', async () => {
    const file = answerInParts();
    const { nav } = sharingNavigator();
    const outcome = sharePhoto(testPhoto('p1', 'Beach'), nav);
    const failed = expect(outcome).rejects.toBeInstanceOf(TypeError);
    await vi.advanceTimersByTimeAsync(1);
    file.send(1000);
    await vi.advanceTimersByTimeAsync(SHARE_STALL_MS);
    await failed;
  });

  it('waits out a slow download of a large original while its bytes keep coming', async () => {
    const file = answerInParts();
    const { nav, shared } = sharingNavigator();
    const outcome = sharePhoto(testPhoto('p1', 'Beach'), nav);
    // Three minutes in all, never silent for SHARE_STALL_MS.
    for (let i = 0; i < 9; i++) {
      await vi.advanceTimersByTimeAsync(SHARE_STALL_MS - 10_000);
      file.send(1000);
    }
    file.end();
    await expect(outcome).resolves.toBe('shared');
    expect(shared[0]).toMatchObject({ name: 'Beach.png', type: 'image/png', size: 9000 });
  });
});
