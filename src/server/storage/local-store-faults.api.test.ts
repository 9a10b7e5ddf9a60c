import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { STORE_UNAVAILABLE_MESSAGE } from '../http/errors';
import { STORE_UNAVAILABLE_UPLOAD_MESSAGE } from '../features/photos/photos.routes';
import { blobConsistency } from '../hardening/support';
import { createTestApp, signUp, type TestApp } from '../test/harness';
import { postPhotos } from '../test/multipart';

/**
 * The local blob folder failing as a disk does: full (ENOSPC), read-only or refused (EROFS,
 * EACCES), or broken (EIO). The failing file-system calls are simulated below the store (its
 * `node:fs/promises`), so the store's own handling of them is what is tested.
 */
const faults = vi.hoisted(() => ({
  /** The error code a call should fail with, or null to let it through. */
  failing: null as null | ((call: string, args: unknown[]) => string | null),
}));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const failable =
    <A extends unknown[], R>(call: string, fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      const code = faults.failing?.(call, args) ?? null;
      if (!code) return fn(...args);
      const err = Object.assign(new Error(`${code}: simulated failure, ${call} '${String(args[0])}'`), {
        code,
        syscall: call,
        path: String(args[0]),
      });
      return Promise.reject(err);
    };
  const mocked = {
    ...real,
    rename: failable('rename', real.rename),
    writeFile: failable('writeFile', real.writeFile),
  };
  return { ...mocked, default: mocked };
});

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const { Writable } = await import('node:stream');
  // A file that opens and then fails its first write (the disk filling while an upload arrives).
  const createWriteStream: typeof real.createWriteStream = (...args) => {
    const code = faults.failing?.('createWriteStream', args) ?? null;
    if (!code) return real.createWriteStream(...args);
    const err = Object.assign(new Error(`${code}: simulated failure, write`), { code, syscall: 'write' });
    return new Writable({ write: (_chunk, _encoding, done) => done(err) }) as ReturnType<typeof real.createWriteStream>;
  };
  const mocked = { ...real, createWriteStream };
  return { ...mocked, default: mocked };
});

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  faults.failing = null;
  await t?.close();
});

const photoBytes = (seed: number) =>
  sharp({ create: { width: 320, height: 240, channels: 3, background: { r: seed, g: 90, b: 160 } } })
    .jpeg()
    .toBuffer();
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** Whether a file-system call touches the blob of this key (its destination or its temp file). */
const touches = (args: unknown[], key: string) => args.some((a) => typeof a === 'string' && a.includes(key));

describe('the local blob folder failing', () => {
  for (const code of ['ENOSPC', 'EIO', 'EACCES']) {
    it(`${code} on one photo of an upload: those before it are answered, it and the rest refused with a 503, nothing half-written`, async () => {
      const { cookie } = await signUp(t.app);
      const [first, failing, third] = await Promise.all([1, 2, 3].map((n) => photoBytes(n + code.length * 10)));
      const key = sha(failing!);
      // The failing photo's original cannot be moved into the store (the disk filled as it was written).
      faults.failing = (call, args) => (call === 'rename' && touches(args, key) ? code : null);
      let res;
      try {
        res = await postPhotos(t.app, cookie, [
          { name: 'first.jpg', bytes: first! },
          { name: 'failing.jpg', bytes: failing! },
          { name: 'third.jpg', bytes: third! },
        ]);
      } finally {
        faults.failing = null;
      }
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({
        uploaded: 1,
        results: [
          { ok: true, fileName: 'first.jpg' },
          { ok: false, fileName: 'failing.jpg', status: 503, message: STORE_UNAVAILABLE_UPLOAD_MESSAGE },
          { ok: false, status: 503, message: STORE_UNAVAILABLE_UPLOAD_MESSAGE },
        ],
      });
      const blobs = await blobConsistency(t.app.ctx.db, t.config.blobDir);
      // No row points at a missing file, and no staged copy is left behind.
      expect(blobs.missing).toEqual([]);
      expect(blobs.temp).toEqual([]);
    });
  }

  it('ENOSPC while an upload arrives: the photos after it are read past, nothing is left in staging', async () => {
    const { cookie } = await signUp(t.app);
    const [first, failing, third] = await Promise.all([41, 42, 43].map(photoBytes));
    let staged = 0;
    faults.failing = (call, args) =>
      call === 'createWriteStream' && String(args[0]).includes('staging') && ++staged === 2 ? 'ENOSPC' : null;
    let res;
    try {
      res = await postPhotos(t.app, cookie, [
        { name: 'first.jpg', bytes: first! },
        { name: 'failing.jpg', bytes: failing! },
        { name: 'third.jpg', bytes: third! },
      ]);
    } finally {
      faults.failing = null;
    }
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      uploaded: 1,
      results: [
        { ok: true, fileName: 'first.jpg' },
        { ok: false, fileName: 'failing.jpg', status: 503, message: STORE_UNAVAILABLE_UPLOAD_MESSAGE },
        { ok: false, fileName: 'The photo after it', status: 503 },
      ],
    });
    const blobs = await blobConsistency(t.app.ctx.db, t.config.blobDir);
    expect(blobs.missing).toEqual([]);
    expect(blobs.temp).toEqual([]);
  });

  it('ENOSPC while a filter is applied: a 503 that says so, the photo unchanged', async () => {
    const { cookie } = await signUp(t.app);
    const up = await postPhotos(t.app, cookie, [{ name: 'edit.jpg', bytes: await photoBytes(77) }]);
    expect(up.statusCode, up.body).toBe(201);
    const photo = up.json().results[0].photo as { id: string; url: string };
    // Any new file written into the store fails (the disk is full).
    faults.failing = (call) => (call === 'writeFile' ? 'ENOSPC' : null);
    let res;
    try {
      res = await t.app.inject({
        method: 'POST',
        url: '/api/photo-filters/apply',
        headers: { cookie },
        payload: { photoId: photo.id, filterName: 'vintage', intensity: 80 },
      });
    } finally {
      faults.failing = null;
    }
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toEqual({ message: STORE_UNAVAILABLE_MESSAGE, code: 'unavailable' });
    const after = await t.app.inject({ method: 'GET', url: `/api/photos/${photo.id}`, headers: { cookie } });
    expect(after.json()).toMatchObject({ url: photo.url });
    const blobs = await blobConsistency(t.app.ctx.db, t.config.blobDir);
    expect(blobs.missing).toEqual([]);
    expect(blobs.temp).toEqual([]);
  });
});
