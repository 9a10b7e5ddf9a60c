import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDroppingProxy, type DroppingProxy } from '../test/dropping-proxy';
import { startTestObjectStore, type TestObjectStore } from '../test/object-store';
import { isBlobKey, LocalBlobStore, sha256Hex, type BlobStore } from './blob-store';
import { S3BlobStore } from './s3-blob-store';

/**
 * One contract, two stores: every case runs against the local folder and against an S3-compatible
 * server (s3rver, started here on loopback), so the object store can stand in for the folder.
 */
interface Subject {
  store: BlobStore & {
    removeStaleTempFiles(olderThan: Date): Promise<number>;
    stageStream: NonNullable<BlobStore['stageStream']>;
  };
  /** Makes a stored blob look written at `when` (what the orphan sweep's grace reads). */
  age(key: string, when: Date): Promise<void>;
  /** Files on local disk that are not blobs (temp files of staged uploads). */
  localTempFiles(): Promise<string[]>;
  close(): Promise<void>;
}

const subjects: Record<string, () => Promise<Subject>> = {
  'local folder': async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'eyevu-blobs-'));
    const store = new LocalBlobStore(root);
    return {
      store,
      age: (key, when) => utimes(path.join(root, key.slice(0, 2), key.slice(2, 4), key), when, when),
      localTempFiles: () => filesUnder(root, (name) => !isBlobKey(name)),
      close: async () => rmSync(root, { recursive: true, force: true }),
    };
  },
  'S3-compatible object store': async () => {
    const server: TestObjectStore = await startTestObjectStore();
    const localStagingDir = mkdtempSync(path.join(os.tmpdir(), 'eyevu-s3-staging-'));
    const store = new S3BlobStore(server.settings, { localStagingDir });
    await store.check();
    return {
      store,
      age: (key, when) => server.age(`blobs/${key}`, when),
      localTempFiles: () => filesUnder(localStagingDir, () => true),
      close: async () => {
        store.close();
        await server.stop();
        rmSync(localStagingDir, { recursive: true, force: true });
      },
    };
  },
};

const keysOf = async (store: BlobStore) => {
  const keys: string[] = [];
  for await (const b of store.list()) keys.push(b.key);
  return keys.sort();
};

const drain = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

const HOUR = 60 * 60 * 1000;

async function filesUnder(dir: string, keep: (name: string) => boolean): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile() && keep(e.name)).map((e) => path.join(e.parentPath, e.name));
}

/** An upload as the multipart parser hands it over: many small chunks, maybe failing half way. */
async function* chunksOf(bytes: Buffer, size: number, failAfter?: number) {
  for (let i = 0; i < bytes.length; i += size) {
    if (failAfter !== undefined && i >= failAfter) throw new Error('client went away');
    yield bytes.subarray(i, i + size);
  }
}

for (const [name, open] of Object.entries(subjects)) {
  describe(`BlobStore contract: ${name}`, () => {
    let s: Subject;
    beforeAll(async () => {
      s = await open();
    });
    afterAll(async () => {
      await s?.close();
    });

    it('stores bytes under their SHA-256, once, and gives them back by read, stream, stat and list', async () => {
      const bytes = randomBytes(3 * 1024 * 1024 + 17);
      const key = await s.store.put(bytes);
      expect(key).toBe(sha256Hex(bytes));
      expect(await s.store.put(Buffer.from(bytes))).toBe(key);
      expect((await s.store.read(key)).equals(bytes)).toBe(true);
      expect((await drain(s.store.stream(key))).equals(bytes)).toBe(true);
      const opened = await s.store.open(key);
      expect(opened.size).toBe(bytes.length);
      expect((await drain(opened.stream)).equals(bytes)).toBe(true);
      expect(await s.store.has(key)).toBe(true);
      const info = await s.store.stat(key);
      expect(info?.size).toBe(bytes.length);
      expect(Math.abs(info!.modifiedAt.getTime() - Date.now())).toBeLessThan(60_000);
      expect((await keysOf(s.store)).filter((k) => k === key)).toHaveLength(1);
      const listed = [];
      for await (const b of s.store.list()) if (b.key === key) listed.push(b);
      expect(listed[0]?.size).toBe(bytes.length);
    });

    it('a missing blob is absent everywhere: has false, stat null, read, stream and open fail with ENOENT, delete is a no-op', async () => {
      const key = sha256Hex(Buffer.from(`never stored ${name}`));
      expect(await s.store.has(key)).toBe(false);
      expect(await s.store.stat(key)).toBeNull();
      await expect(s.store.read(key)).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(drain(s.store.stream(key))).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(s.store.open(key)).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(s.store.delete(key)).resolves.toBeUndefined();
    });

    it('refuses a key that is not a SHA-256 (no path tricks)', async () => {
      for (const bad of ['../../etc/passwd', 'ABC', `${'a'.repeat(64)}/x`]) {
        await expect(s.store.read(bad)).rejects.toThrow(/invalid blob key/);
        await expect(s.store.delete(bad)).rejects.toThrow(/invalid blob key/);
      }
    });

    it('delete removes the blob and its listing', async () => {
      const key = await s.store.put(Buffer.from(`to delete ${name}`));
      await s.store.delete(key);
      expect(await s.store.has(key)).toBe(false);
      expect(await keysOf(s.store)).not.toContain(key);
    });

    it('re-storing bytes already there refreshes their time, so the orphan sweep spares them', async () => {
      const key = await s.store.put(Buffer.from(`re-put ${name}`));
      await s.age(key, new Date(Date.now() - 2 * HOUR));
      expect((await s.store.stat(key))!.modifiedAt.getTime()).toBeLessThan(Date.now() - HOUR);
      await s.store.put(Buffer.from(`re-put ${name}`));
      expect((await s.store.stat(key))!.modifiedAt.getTime()).toBeGreaterThan(Date.now() - HOUR);
    });

    it('a staged blob is invisible until committed; commit is idempotent', async () => {
      const bytes = Buffer.from(`staged ${name} ${Date.now()}`);
      const staged = await s.store.stage(bytes);
      expect(staged.key).toBe(sha256Hex(bytes));
      expect(await s.store.has(staged.key)).toBe(false);
      expect(await keysOf(s.store)).not.toContain(staged.key);
      expect(await staged.commit()).toBe(staged.key);
      expect(await staged.commit()).toBe(staged.key);
      expect((await s.store.read(staged.key)).equals(bytes)).toBe(true);
      await staged.discard();
      expect(await s.store.has(staged.key)).toBe(true);
    });

    it('discarding a staged copy of stored bytes leaves the stored blob alone; nothing is left behind', async () => {
      const bytes = Buffer.from(`shared ${name}`);
      const key = await s.store.put(bytes);
      const staged = await s.store.stage(bytes);
      await staged.discard();
      await staged.discard();
      expect((await s.store.read(key)).equals(bytes)).toBe(true);
      const refused = await s.store.stage(Buffer.from(`refused upload ${name}`));
      await refused.discard();
      expect(await s.store.has(refused.key)).toBe(false);
      expect(await s.store.removeStaleTempFiles(new Date(Date.now() + HOUR))).toBe(0);
    });

    it('committing bytes already stored keeps one blob and refreshes it', async () => {
      const bytes = Buffer.from(`committed twice ${name}`);
      const key = await s.store.put(bytes);
      await s.age(key, new Date(Date.now() - 2 * HOUR));
      await (await s.store.stage(bytes)).commit();
      expect((await s.store.stat(key))!.modifiedAt.getTime()).toBeGreaterThan(Date.now() - HOUR);
      expect((await keysOf(s.store)).filter((k) => k === key)).toHaveLength(1);
      expect(await s.store.removeStaleTempFiles(new Date(Date.now() + HOUR))).toBe(0);
    });

    it('a stage a crash never finished is not a blob, and the stale sweep removes it', async () => {
      const before = await keysOf(s.store);
      const abandoned = await s.store.stage(Buffer.from(`crashed mid-upload ${name}`));
      expect(await keysOf(s.store)).toEqual(before);
      // Younger than the cutoff: kept (an upload may still be running).
      expect(await s.store.removeStaleTempFiles(new Date(Date.now() - HOUR))).toBe(0);
      expect(await s.store.removeStaleTempFiles(new Date(Date.now() + HOUR))).toBe(1);
      expect(await s.store.has(abandoned.key)).toBe(false);
      expect(await keysOf(s.store)).toEqual(before);
    });
    it('stageStream keys and sizes an upload from its chunks, shows nothing until commit, and leaves no temp file', async () => {
      const bytes = randomBytes(3 * 1024 * 1024 + 17);
      const staged = await s.store.stageStream(chunksOf(bytes, 65_536));
      expect(staged).toMatchObject({ key: sha256Hex(bytes), size: bytes.length });
      expect(await s.store.has(staged.key)).toBe(false);
      expect(await keysOf(s.store)).not.toContain(staged.key);
      expect(await staged.commit()).toBe(staged.key);
      expect(await staged.commit()).toBe(staged.key);
      expect((await s.store.read(staged.key)).equals(bytes)).toBe(true);
      expect((await s.store.stat(staged.key))!.size).toBe(bytes.length);
      expect(await s.localTempFiles()).toEqual([]);
      expect(await s.store.removeStaleTempFiles(new Date(Date.now() + HOUR))).toBe(0);
    });

    it('stageStream: a discarded upload leaves nothing, and bytes already stored are kept once and refreshed', async () => {
      const stored = randomBytes(200_000);
      const key = await s.store.put(stored);
      await s.age(key, new Date(Date.now() - 2 * HOUR));
      const again = await s.store.stageStream(chunksOf(stored, 10_000));
      expect(await again.commit()).toBe(key);
      expect((await s.store.stat(key))!.modifiedAt.getTime()).toBeGreaterThan(Date.now() - HOUR);
      expect((await keysOf(s.store)).filter((k) => k === key)).toHaveLength(1);

      const refused = await s.store.stageStream(chunksOf(randomBytes(500_000), 65_536));
      await refused.discard();
      await refused.discard();
      expect(await s.store.has(refused.key)).toBe(false);
      const copy = await s.store.stageStream(chunksOf(stored, 65_536));
      await copy.discard();
      expect((await s.store.read(key)).equals(stored)).toBe(true);
      expect(await s.localTempFiles()).toEqual([]);
      expect(await s.store.removeStaleTempFiles(new Date(Date.now() + HOUR))).toBe(0);
    });

    it('stageStream: an upload that fails half way leaves no blob, staging object or temp file', async () => {
      const before = await keysOf(s.store);
      const bytes = randomBytes(400_000);
      await expect(s.store.stageStream(chunksOf(bytes, 65_536, 200_000))).rejects.toThrow('client went away');
      expect(await keysOf(s.store)).toEqual(before);
      expect(await s.localTempFiles()).toEqual([]);
      expect(await s.store.removeStaleTempFiles(new Date(Date.now() + HOUR))).toBe(0);
    });

    it('stageStream: uploads that fail at their first bytes leave no temp file either', async () => {
      // The failure reaches the stager while its temp file is still being opened.
      const bytes = randomBytes(1_000);
      for (let i = 0; i < 20; i++) {
        await expect(s.store.stageStream(chunksOf(bytes, 500, 0))).rejects.toThrow('client went away');
      }
      expect(await s.localTempFiles()).toEqual([]);
    });
  });
}

describe('S3BlobStore: a connection closed under a streamed upload', () => {
  let server: TestObjectStore;
  let proxy: DroppingProxy;
  let store: S3BlobStore;
  let localStagingDir: string;
  beforeAll(async () => {
    server = await startTestObjectStore();
    proxy = await startDroppingProxy(server.settings.endpoint!);
    localStagingDir = mkdtempSync(path.join(os.tmpdir(), 'eyevu-s3-staging-'));
    store = new S3BlobStore({ ...server.settings, endpoint: proxy.url }, { localStagingDir });
  });
  afterAll(async () => {
    store.close();
    await proxy.close();
    await server.stop();
    rmSync(localStagingDir, { recursive: true, force: true });
  });

  it('sends the upload again from its temp file (the SDK cannot replay a stream), and it commits whole', async () => {
    const bytes = randomBytes(300_000);
    // The staging PUT's connection is closed once it has started, as a server closing an idle
    // kept-alive connection does when the request lands on it.
    proxy.drop((req) => req.method === 'PUT' && req.url!.includes('/staging/'), 2);
    const staged = await store.stageStream(chunksOf(bytes, 65_536));
    expect(await staged.commit()).toBe(sha256Hex(bytes));
    expect(proxy.dropped).toBe(2);
    expect((await store.read(staged.key)).equals(bytes)).toBe(true);
    expect(await filesUnder(localStagingDir, () => true)).toEqual([]);
  });

  it("puts the SDK's warning about the dropped request in the server's log, not on the console", async () => {
    const lines: { level: string; obj: object; msg: string }[] = [];
    const log = {
      warn: (obj: object, msg: string) => lines.push({ level: 'warn', obj, msg }),
      error: (obj: object, msg: string) => lines.push({ level: 'error', obj, msg }),
    };
    const logged = new S3BlobStore({ ...server.settings, endpoint: proxy.url }, { localStagingDir, log });
    const consoleWarn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const bytes = randomBytes(20_000);
      proxy.drop((req) => req.method === 'PUT' && req.url!.includes('/staging/'), 1);
      const staged = await logged.stageStream(chunksOf(bytes, 65_536));
      expect(await staged.commit()).toBe(sha256Hex(bytes));
      expect(consoleWarn).not.toHaveBeenCalled();
      const warnings = lines.filter((l) => l.level === 'warn');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toMatch(/non-retryable streaming request/);
      expect(warnings[0]!.obj).toEqual({ store: 's3', bucket: server.settings.bucket });
    } finally {
      consoleWarn.mockRestore();
      logged.close();
    }
  });

  it('gives up after three tries, and the failed upload leaves no temp file', async () => {
    const bytes = randomBytes(50_000);
    proxy.drop((req) => req.method === 'PUT' && req.url!.includes('/staging/'), 3);
    const staged = await store.stageStream(chunksOf(bytes, 65_536));
    await expect(staged.commit()).rejects.toThrow();
    expect(proxy.dropped).toBe(3);
    expect(await store.has(staged.key)).toBe(false);
    expect(await filesUnder(localStagingDir, () => true)).toEqual([]);
  });
});
