import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Content-addressed blob storage: a blob's key is the SHA-256 of its bytes, so the same bytes are
 * stored once however many photos use them, and a key never changes meaning (URLs that carry it
 * can be cached forever). The interface is small so an object store can replace the local folder.
 */
export interface BlobInfo {
  key: string;
  size: number;
  /** Last write or re-use (`put` of bytes already stored refreshes it). */
  modifiedAt: Date;
}

/** Bytes written out of sight: `commit` makes them a blob (idempotent), `discard` drops them. */
export interface StagedBlob {
  key: string;
  commit(): Promise<string>;
  discard(): Promise<void>;
}

/** A blob being read: its size and its bytes as they arrive (`BlobStore.open`). */
export interface OpenedBlob {
  /** Null when the store did not say (the answer is then sent without a length). */
  size: number | null;
  stream: Readable;
}

/**
 * The store failed (unreachable, silent past its timeouts, a server error, a refused key), as
 * opposed to a missing blob (ENOENT): answered 503, and an upload's photo is refused as such.
 */
export class BlobStoreUnavailable extends Error {
  readonly code = 'EBLOBSTORE';
}

/**
 * The longest a delete's (or a dropped version's) removals may hold its blob-key locks (and the owner's, and a pool
 * connection). Each removal against a silent store waited out the SDK's three tries (~90 s), while
 * an upload or edit of the same file waited for the lock past its own 30 s statement bound (a
 * 503), and on PGlite every transaction waited. At the deadline the removals still running are
 * aborted (no try is sent after it) and the rest left to the orphan sweep: the rows are gone, so
 * those files are orphans like any other.
 */
export const BLOB_REMOVAL_DEADLINE_MS = 10_000;

/** A blob staged from a stream: its key and size are known once the last byte has arrived. */
export interface StreamStagedBlob extends StagedBlob {
  size: number;
}

export interface BlobStore {
  /** Stores the bytes (idempotent) and returns their key. Re-putting existing bytes refreshes modifiedAt. */
  put(bytes: Buffer): Promise<string>;
  /**
   * Writes the bytes where no reader or sweep looks, so a large original can be written while it
   * is still being checked; nothing becomes visible unless `commit` is called.
   */
  stage(bytes: Buffer): Promise<StagedBlob>;
  /**
   * Optional: `stage`, fed from a stream that is hashed and written as it arrives, so a large
   * upload is on disk and keyed by the time its last byte is in. Stores without it are given the
   * whole buffer through `stage`.
   */
  stageStream?(source: AsyncIterable<Uint8Array>): Promise<StreamStagedBlob>;
  has(key: string): Promise<boolean>;
  stat(key: string): Promise<BlobInfo | null>;
  read(key: string): Promise<Buffer>;
  stream(key: string): Readable;
  /**
   * The blob's size and bytes, once the store has answered: a missing blob (ENOENT) or a failing
   * store is known before anything is sent, so it can still be answered as such (a stream that
   * fails at its first read is an error after the answer's headers).
   */
  open(key: string): Promise<OpenedBlob>;
  /** `signal` gives the removal up (an object store's request is aborted, none sent after it). */
  delete(key: string, opts?: { signal?: AbortSignal }): Promise<void>;
  /** Every stored blob, in no particular order. */
  list(): AsyncIterable<BlobInfo>;
}

/**
 * File-system errors that say the folder itself is failing (full, over quota, read-only, refused,
 * broken, out of descriptors), not that a blob is missing (ENOENT): for the callers the store is
 * unavailable, as an object store that fails is. Left raw they were a 500 'Something went wrong',
 * and an upload answered that over the photos it had already stored.
 */
const DISK_FAILURE_CODES: ReadonlySet<unknown> = new Set([
  'ENOSPC',
  'EDQUOT',
  'EIO',
  'EROFS',
  'EACCES',
  'EPERM',
  'EMFILE',
  'ENFILE',
]);

/** `err` as the callers should see it: `BlobStoreUnavailable` when the disk failed, else itself. */
export function diskFailure(err: unknown): unknown {
  if (!DISK_FAILURE_CODES.has((err as NodeJS.ErrnoException | undefined)?.code)) return err;
  return new BlobStoreUnavailable(`blob folder: ${(err as Error).message}`, { cause: err });
}

/** `work`, its disk failures thrown as `BlobStoreUnavailable`. */
async function onDisk<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw diskFailure(err);
  }
}

export const sha256Hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * How far the temp file's writes may fall behind the stream. Node's default (16 KB) made each
 * 64 KB network chunk wait for its own write to come back from the thread pool before the next
 * was read: a 2.4 MB photo arrived in ~40 file-system round trips, 20-120 ms on a busy machine.
 * With room for a whole photo the chunks are read as fast as they come and written in a few
 * batched writes behind them; larger uploads are still paced, so no more than this is held.
 */
export const STAGE_WRITE_BUFFER_BYTES = 8 * 1024 * 1024;

/**
 * Staging folders made by this process. An upload's first bytes wait for their folder, and making
 * it on every upload cost a thread-pool round trip before any byte was read (2-47 ms at load 5-9
 * in a trace of the P1 bench). Forgotten when a write finds it gone, so the next upload makes it.
 */
const madeDirs = new Map<string, Promise<unknown>>();
function madeDir(dir: string): Promise<unknown> {
  let made = madeDirs.get(dir);
  if (!made) {
    made = mkdir(dir, { recursive: true });
    madeDirs.set(dir, made);
    made.catch(() => madeDirs.delete(dir));
  }
  return made;
}

/**
 * Writes a stream to a new temp file in `dir` while hashing it (SHA-256, the blob key) and counting
 * its bytes. Answers as soon as the last byte has been hashed: the file's last writes and its close
 * go on in `written`, which a commit waits for (on a busy machine they took up to ~170 ms that the
 * decode need not wait for). A stream that fails leaves no file, and so does a write that fails.
 */
export async function hashIntoTempFile(
  source: AsyncIterable<Uint8Array>,
  dir: string,
): Promise<{ tmp: string; key: string; size: number; written: Promise<void> }> {
  await onDisk(() => madeDir(dir));
  const tmp = path.join(dir, `${randomBytes(8).toString('hex')}.tmp`);
  const hash = createHash('sha256');
  let size = 0;
  let allHashed!: () => void;
  const hashed = new Promise<void>((resolve) => (allHashed = resolve));
  const out = createWriteStream(tmp, { highWaterMark: STAGE_WRITE_BUFFER_BYTES });
  const written = pipeline(
    source,
    async function* (chunks: AsyncIterable<Uint8Array>) {
      for await (const chunk of chunks) {
        hash.update(chunk);
        size += chunk.length;
        yield chunk;
      }
      allHashed();
    },
    out,
  ).catch(async (err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') madeDirs.delete(dir);
    // A source failing at once fails the pipeline while the file is still being opened: the open
    // then creates it after a removal made now. Removed once the destroyed stream has closed.
    if (!out.closed) await new Promise((resolve) => out.once('close', resolve));
    await rm(tmp, { force: true });
    // The source's own errors (a client gone, a malformed body) stay as they are.
    throw diskFailure(err);
  });
  written.catch(() => undefined); // the caller's commit or discard reports it
  // A failing source rejects `written` before the last byte is hashed, so this throws.
  await Promise.race([hashed, written]);
  return { tmp, key: hash.digest('hex'), size, written };
}
export const isBlobKey = (key: string) => /^[0-9a-f]{64}$/.test(key);

/** A folder on disk: `<root>/ab/cd/<key>`. Writes go to a temp file then rename, so a reader never sees half a blob. */
export class LocalBlobStore implements BlobStore {
  constructor(readonly root: string) {}

  private pathOf(key: string) {
    if (!isBlobKey(key)) throw new Error(`invalid blob key: ${key}`);
    return path.join(this.root, key.slice(0, 2), key.slice(2, 4), key);
  }

  /**
   * Four file-system calls (open, write, close, rename) in the usual case: no look before writing,
   * since a blob already stored is the same bytes, and renaming over it gives it a fresh time (what
   * the orphan sweep's grace needs). The folder is made only when the rename says it is missing.
   */
  async put(bytes: Buffer): Promise<string> {
    const key = sha256Hex(bytes);
    const file = this.pathOf(key);
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, bytes).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(tmp, bytes);
      });
      await rename(tmp, file);
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw diskFailure(err);
    }
    return key;
  }

  async stage(bytes: Buffer): Promise<StagedBlob> {
    const key = sha256Hex(bytes);
    const file = this.pathOf(key);
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    let done = false;
    try {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(tmp, bytes);
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw diskFailure(err);
    }
    return {
      key,
      commit: async () => {
        if (done) return key;
        done = true;
        const now = new Date();
        try {
          await utimes(file, now, now);
          await rm(tmp, { force: true });
        } catch {
          try {
            await rename(tmp, file);
          } catch (err) {
            // Marked done: no discard follows, so the copy goes now.
            await rm(tmp, { force: true }).catch(() => undefined);
            throw diskFailure(err);
          }
        }
        return key;
      },
      discard: async () => {
        if (done) return;
        done = true;
        await rm(tmp, { force: true });
      },
    };
  }

  /**
   * The key is known only after the last byte, so the bytes go to a temp file in `staging/in`
   * (two levels deep like the blob folders, so `removeStaleTempFiles` clears what a crash leaves
   * there) and are renamed into place by `commit`.
   */
  async stageStream(source: AsyncIterable<Uint8Array>): Promise<StreamStagedBlob> {
    const { tmp, key, size, written } = await hashIntoTempFile(source, path.join(this.root, 'staging', 'in'));
    let done = false;
    return {
      key,
      size,
      commit: async () => {
        if (done) return key;
        done = true;
        await written;
        const file = this.pathOf(key);
        // Over a blob already stored (the same bytes) the rename only refreshes its time.
        try {
          await rename(tmp, file).catch(async (err: NodeJS.ErrnoException) => {
            if (err.code !== 'ENOENT') throw err;
            await mkdir(path.dirname(file), { recursive: true });
            await rename(tmp, file);
          });
        } catch (err) {
          await rm(tmp, { force: true }).catch(() => undefined);
          throw diskFailure(err);
        }
        return key;
      },
      discard: async () => {
        if (done) return;
        done = true;
        await written.catch(() => undefined);
        await rm(tmp, { force: true });
      },
    };
  }

  async has(key: string) {
    return (await this.stat(key)) !== null;
  }

  async stat(key: string): Promise<BlobInfo | null> {
    try {
      const s = await stat(this.pathOf(key));
      return { key, size: s.size, modifiedAt: s.mtime };
    } catch {
      return null;
    }
  }

  async read(key: string) {
    return onDisk(() => readFile(this.pathOf(key)));
  }

  stream(key: string): Readable {
    return createReadStream(this.pathOf(key));
  }

  async open(key: string): Promise<OpenedBlob> {
    const handle = await onDisk(() => open(this.pathOf(key), 'r'));
    try {
      const { size } = await handle.stat();
      // The stream closes the handle when it ends or is destroyed.
      return { size, stream: handle.createReadStream() };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async delete(key: string) {
    await unlink(this.pathOf(key)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  async *list(): AsyncIterable<BlobInfo> {
    const dirs = async (p: string) => readdir(p).catch(() => [] as string[]);
    for (const a of await dirs(this.root)) {
      if (!/^[0-9a-f]{2}$/.test(a)) continue;
      for (const b of await dirs(path.join(this.root, a))) {
        if (!/^[0-9a-f]{2}$/.test(b)) continue;
        const dir = path.join(this.root, a, b);
        for (const name of await dirs(dir)) {
          // Temp files of interrupted writes are not blobs; removeStaleTempFiles ages them out.
          if (!isBlobKey(name)) continue;
          const s = await stat(path.join(dir, name)).catch(() => null);
          if (s) yield { key: name, size: s.size, modifiedAt: s.mtime };
        }
      }
    }
  }

  /** Temp files left by a crash in the middle of a write, older than `olderThan`. */
  async removeStaleTempFiles(olderThan: Date): Promise<number> {
    let removed = 0;
    const dirs = async (p: string) => readdir(p).catch(() => [] as string[]);
    for (const a of await dirs(this.root)) {
      for (const b of await dirs(path.join(this.root, a))) {
        const dir = path.join(this.root, a, b);
        for (const name of await dirs(dir)) {
          if (!name.endsWith('.tmp')) continue;
          const s = await stat(path.join(dir, name)).catch(() => null);
          if (s && s.mtime < olderThan) {
            await rm(path.join(dir, name), { force: true });
            removed += 1;
          }
        }
      }
    }
    return removed;
  }
}
