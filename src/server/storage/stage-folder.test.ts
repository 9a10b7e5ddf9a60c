import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LocalBlobStore, sha256Hex } from './blob-store';

// mkdir counted: the staging folder is made once per process, not on every upload's first bytes.
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return { ...actual, mkdir: vi.fn(actual.mkdir) };
});

async function* once(bytes: Buffer) {
  yield bytes;
}

describe('LocalBlobStore.stageStream: its staging folder', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'eyevu-stage-folder-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const staging = () => path.join(root, 'staging', 'in');
  const madeStaging = () => vi.mocked(mkdir).mock.calls.filter(([dir]) => dir === staging()).length;

  it('is made by the first upload only: the next ones read their first bytes at once', async () => {
    const store = new LocalBlobStore(root);
    for (const n of [1, 2, 3]) {
      const bytes = Buffer.alloc(1000, n);
      const staged = await store.stageStream(once(bytes));
      expect(staged.key).toBe(sha256Hex(bytes));
      expect((await store.read(await staged.commit())).equals(bytes)).toBe(true);
    }
    expect(madeStaging()).toBe(1);
  });

  it('is made again after something removed it: one upload fails, the next is staged', async () => {
    const store = new LocalBlobStore(root);
    await (await store.stageStream(once(Buffer.alloc(10, 1)))).commit();
    await rm(path.join(root, 'staging'), { recursive: true, force: true });
    // Its file cannot be opened: the staging (or, when every byte was hashed first, its commit) fails.
    const lost = store.stageStream(once(Buffer.alloc(10, 2))).then((s) => s.commit());
    await expect(lost).rejects.toMatchObject({ code: 'ENOENT' });
    const staged = await store.stageStream(once(Buffer.alloc(10, 3)));
    expect(await store.has(await staged.commit())).toBe(true);
  });
});
