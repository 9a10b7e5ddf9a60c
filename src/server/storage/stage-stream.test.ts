import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LocalBlobStore, sha256Hex } from './blob-store';

/** Every file under `dir`, as paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.push(path.relative(dir, path.join(e.parentPath, e.name)));
  }
  return out;
}

async function* chunksOf(bytes: Buffer, size: number, failAfter?: number) {
  for (let i = 0; i < bytes.length; i += size) {
    if (failAfter !== undefined && i >= failAfter) throw new Error('client went away');
    yield bytes.subarray(i, i + size);
  }
}

describe('LocalBlobStore.stageStream (an upload written and hashed as it arrives)', () => {
  let root: string;
  let store: LocalBlobStore;
  const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 251));
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'eyevu-stage-'));
    store = new LocalBlobStore(root);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('keys the bytes by their SHA-256 and shows nothing until commit', async () => {
    const staged = await store.stageStream(chunksOf(bytes, 65_536));
    expect(staged).toMatchObject({ key: sha256Hex(bytes), size: bytes.length });
    expect(await store.has(staged.key)).toBe(false);
    for await (const b of store.list()) expect.unreachable(`listed before commit: ${b.key}`);
    expect(await staged.commit()).toBe(staged.key);
    expect((await store.read(staged.key)).equals(bytes)).toBe(true);
    expect(await filesUnder(root)).toEqual([path.join(staged.key.slice(0, 2), staged.key.slice(2, 4), staged.key)]);
  });

  it('commits bytes already stored without a second copy, and discards without a trace', async () => {
    const key = await store.put(bytes);
    const again = await store.stageStream(chunksOf(bytes, 10_000));
    expect(await again.commit()).toBe(key);
    const dropped = await store.stageStream(chunksOf(Buffer.from('not wanted after all'), 4));
    await dropped.discard();
    expect(await filesUnder(root)).toEqual([path.join(key.slice(0, 2), key.slice(2, 4), key)]);
  });

  it('leaves no temp file when the stream fails half way', async () => {
    await expect(store.stageStream(chunksOf(bytes, 65_536, 100_000))).rejects.toThrow('client went away');
    expect(await filesUnder(root)).toEqual([]);
  });

  it('puts its temp files where the stale temp sweep finds what a crash leaves', async () => {
    const staged = await store.stageStream(chunksOf(bytes, 65_536));
    const [tmp] = await filesUnder(root);
    expect(tmp).toMatch(/\.tmp$/);
    const old = new Date(Date.now() - 60 * 60 * 1000);
    await utimes(path.join(root, tmp!), old, old);
    await writeFile(path.join(root, 'not-staged.txt'), 'kept');
    expect(await store.removeStaleTempFiles(new Date(Date.now() - 10 * 60 * 1000))).toBe(1);
    expect(await filesUnder(root)).toEqual(['not-staged.txt']);
    await staged.discard();
  });
});
