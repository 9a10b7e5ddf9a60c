import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type _Object,
} from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { format } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import {
  BlobStoreUnavailable,
  hashIntoTempFile,
  isBlobKey,
  sha256Hex,
  type BlobInfo,
  type BlobStore,
  type OpenedBlob,
  type StagedBlob,
  type StreamStagedBlob,
} from './blob-store';

/** Where and how to reach the bucket; parsed from BLOB_STORE_URL by config.ts. */
export interface S3StoreSettings {
  bucket: string;
  /** '' or a folder inside the bucket, ending in '/'. */
  prefix: string;
  /** A non-AWS server (MinIO, R2, Ceph...); unset means AWS S3 in `region`. */
  endpoint?: string;
  region: string;
  /** `endpoint/bucket/key` rather than `bucket.endpoint/key`; what custom endpoints expect. */
  forcePathStyle: boolean;
  /** Unset: the SDK's own chain (instance role, profile...). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** STORE_CONNECT_TIMEOUT_MS and STORE_IDLE_TIMEOUT_MS unless set (tests shorten them). */
  timeouts?: { connectMs: number; idleMs: number };
}

/**
 * How long a connection to the store may take to open, and how long one may stay silent (no byte
 * either way) mid-request. The SDK's defaults bound neither, so a store that accepted a connection
 * and never answered (an overloaded server, a stuck proxy, a bucket behind a dead route) held
 * every request that reached it for ever: the uploader's places in flight, the handler's decode,
 * and a graceful shutdown that waits for requests in flight. Silence, not a total: a large photo
 * sent or read at a slow but steady pace is never cut. 30 s, under the 60 s the server gives its
 * own clients' silence (IDLE_CONNECTION_MS), which a download held back by a slow reader meets
 * first; the SDK tries a timed-out request 3 times, so a store that stays silent answers in ~1.5 min.
 */
export const STORE_CONNECT_TIMEOUT_MS = 10_000;
export const STORE_IDLE_TIMEOUT_MS = 30_000;

/**
 * S3 has no "touch": re-storing bytes that are already there rewrites the object's metadata (a copy
 * onto itself), and this field records when. Not every S3-compatible server moves LastModified on
 * such a copy, so `stat` takes the later of the two.
 */
const TOUCHED = 'touched-ms';

/** A missing blob fails like a missing file, so callers test `code === 'ENOENT'` for both stores. */
function missing(key: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`blob not found: ${key}`);
  err.code = 'ENOENT';
  return err;
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  if (e?.name === 'NoSuchBucket') return false;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/**
 * A failure of the store itself (unreachable, silent, a 5xx, a refused key), as the callers see it:
 * `BlobStoreUnavailable`, which the server answers 503. A missing object is not one (ENOENT).
 */
function unavailable(err: unknown): unknown {
  if (isNotFound(err) || (err as NodeJS.ErrnoException)?.code === 'ENOENT') return err;
  if (err instanceof BlobStoreUnavailable) return err;
  const e = err as { name?: string; message?: string };
  return new BlobStoreUnavailable(`object store: ${e?.name ?? 'error'}: ${e?.message ?? String(err)}`, {
    cause: err,
  });
}

/** Tries of one streamed PutObject (see `sendFile`), and the pause before the next, growing. */
const STREAM_PUT_ATTEMPTS = 3;
const STREAM_PUT_RETRY_MS = 100;

/** Where the SDK's warnings and errors go; pino's logger (the server's) has this shape. */
export interface StoreLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * The SDK's warnings and errors in the server's log, tagged with the bucket. Without a logger the
 * SDK writes warnings to the console (one per failed streamed PutObject, which `sendFile` then
 * sends again), outside the structured log. Its info line per command (the whole input and output)
 * and its debug lines are dropped unread: formatting them cost every read.
 */
function sdkLogger(log: StoreLogger, bucket: string) {
  // format, not JSON: the SDK passes objects that refer to themselves.
  const line = (content: unknown[]) => format(...content);
  return {
    debug: () => {},
    info: () => {},
    warn: (...content: unknown[]) => log.warn({ store: 's3', bucket }, line(content)),
    error: (...content: unknown[]) => log.error({ store: 's3', bucket }, line(content)),
  };
}

/** The server answered and refused the request (4xx other than a timeout or throttling). */
function isRefusal(err: unknown): boolean {
  const status = (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode ?? 0;
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/**
 * Blobs as objects `<prefix>blobs/<sha256>` in one bucket; uploads not yet committed wait under
 * `<prefix>staging/`, where neither readers nor the orphan sweep's `list` look. Reads go through
 * the server (see docs/decisions), so the owner check and cache headers stay those of the routes.
 */
export class S3BlobStore implements BlobStore {
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly blobPrefix: string;
  private readonly stagingPrefix: string;

  /**
   * Where `stageStream` keeps an upload on local disk while it is hashed (the object key is the
   * hash, known only after the last byte) and sent on; `removeStaleTempFiles` clears what a crash
   * leaves there.
   */
  readonly localStagingDir: string;

  constructor(
    readonly settings: S3StoreSettings,
    opts: { localStagingDir?: string; log?: StoreLogger } = {},
  ) {
    this.localStagingDir = opts.localStagingDir ?? path.join(os.tmpdir(), 'eyevu-s3-staging');
    this.bucket = settings.bucket;
    this.blobPrefix = `${settings.prefix}blobs/`;
    this.stagingPrefix = `${settings.prefix}staging/`;
    const timeouts = settings.timeouts ?? { connectMs: STORE_CONNECT_TIMEOUT_MS, idleMs: STORE_IDLE_TIMEOUT_MS };
    this.client = new S3Client({
      requestHandler: { connectionTimeout: timeouts.connectMs, socketTimeout: timeouts.idleMs },
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials,
      ...(opts.log ? { logger: sdkLogger(opts.log, settings.bucket) } : {}),
      // The SDK's default checksums (CRC32 headers and trailers) are newer than many S3-compatible
      // servers; with a custom endpoint they are sent only where the API requires them.
      ...(settings.endpoint
        ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }
        : {}),
    });
  }

  /** Fails with a message naming the bucket when it cannot be reached (called once at start). */
  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
      const where = this.settings.endpoint ?? `AWS S3 (${this.settings.region})`;
      const why =
        e.$metadata?.httpStatusCode === 404
          ? 'it does not exist (create it first)'
          : e.$metadata?.httpStatusCode === 403
            ? 'access denied (check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)'
            : `${e.name ?? 'error'}: ${e.message ?? String(err)}`;
      throw new Error(`Object store: bucket "${this.bucket}" at ${where}: ${why}`, { cause: err });
    }
  }

  close() {
    this.client.destroy();
  }

  /** The client's `send`, any failure but a missing object thrown as `BlobStoreUnavailable`. */
  private readonly send = ((command: Parameters<S3Client['send']>[0], options?: { abortSignal?: AbortSignal }) =>
    this.client.send(command, options).catch((err: unknown) => {
      throw unavailable(err);
    })) as unknown as S3Client['send'];

  private objectKey(key: string) {
    if (!isBlobKey(key)) throw new Error(`invalid blob key: ${key}`);
    return this.blobPrefix + key;
  }

  private copySource(objectKey: string) {
    return `${this.bucket}/${objectKey.split('/').map(encodeURIComponent).join('/')}`;
  }

  /** Marks an existing blob as just written (the orphan sweep's grace); false when there is none. */
  private async touch(key: string): Promise<boolean> {
    const objectKey = this.objectKey(key);
    try {
      await this.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: objectKey,
          CopySource: this.copySource(objectKey),
          MetadataDirective: 'REPLACE',
          ContentType: 'application/octet-stream',
          Metadata: { [TOUCHED]: String(Date.now()) },
        }),
      );
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  private async write(objectKey: string, bytes: Buffer) {
    await this.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: objectKey,
        Body: bytes,
        ContentLength: bytes.length,
        ContentType: 'application/octet-stream',
      }),
    );
  }

  private async remove(objectKey: string, signal?: AbortSignal) {
    // S3 answers a delete of a missing object with success, so this is idempotent like unlink-if-present.
    await this.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: objectKey }), { abortSignal: signal });
  }

  async put(bytes: Buffer): Promise<string> {
    const key = sha256Hex(bytes);
    if (!(await this.touch(key))) await this.write(this.objectKey(key), bytes);
    return key;
  }

  async stage(bytes: Buffer): Promise<StagedBlob> {
    const key = sha256Hex(bytes);
    const staging = this.stagingKey(key);
    await this.write(staging, bytes);
    return this.staged(key, staging, Promise.resolve());
  }

  /**
   * The upload is hashed and written to a local temp file as it arrives, never held whole in
   * memory; once the last byte is in, the staging object is sent from that file in the
   * background (a streaming PutObject with its length), so the caller's decode overlaps the
   * transfer. `commit` and `discard` wait for it; the temp file is removed once it has been sent
   * or has failed.
   */
  async stageStream(source: AsyncIterable<Uint8Array>): Promise<StreamStagedBlob> {
    const { tmp, key, size, written } = await hashIntoTempFile(source, this.localStagingDir);
    const staging = this.stagingKey(key);
    const sent = written.then(() => this.sendFile(staging, tmp, size)).finally(() => rm(tmp, { force: true }));
    sent.catch(() => undefined); // reported by commit; discard does not need it
    return { ...this.staged(key, staging, sent), size };
  }

  /**
   * A streaming PutObject from a local file. The SDK cannot replay a stream, so it never retries
   * one: a connection the server closed as it was reused (an idle keep-alive, a restart) failed the
   * upload. Each attempt here reads the file afresh; a refusal of the request itself (4xx) is final.
   */
  private async sendFile(objectKey: string, file: string, size: number) {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.send(
          new PutObjectCommand({
            Bucket: this.bucket,
            Key: objectKey,
            Body: createReadStream(file),
            ContentLength: size,
            ContentType: 'application/octet-stream',
          }),
        );
        return;
      } catch (err) {
        if (attempt >= STREAM_PUT_ATTEMPTS || isRefusal(err)) throw unavailable(err);
        await delay(STREAM_PUT_RETRY_MS * attempt);
      }
    }
  }

  private stagingKey(key: string) {
    return `${this.stagingPrefix}${key}.${randomBytes(6).toString('hex')}`;
  }

  /** `sent` settles once the staging object is written (or failed to be). */
  private staged(key: string, staging: string, sent: Promise<void>): StagedBlob {
    let done = false;
    return {
      key,
      commit: async () => {
        if (done) return key;
        await sent;
        // Stored already (another photo's bytes): only its time moves; otherwise a server-side copy.
        if (!(await this.touch(key))) {
          await this.send(
            new CopyObjectCommand({
              Bucket: this.bucket,
              Key: this.objectKey(key),
              CopySource: this.copySource(staging),
              ContentType: 'application/octet-stream',
            }),
          );
        }
        done = true;
        // The blob is in place: a staging copy the store failed to remove is not worth failing the
        // upload for, and the orphan sweep clears it (`removeStaleTempFiles`).
        await this.remove(staging).catch(() => undefined);
        return key;
      },
      discard: async () => {
        if (done) return;
        done = true;
        // A put still on its way would otherwise land after the delete and be left behind.
        await sent.catch(() => undefined);
        // Likewise: a refused upload is answered as refused (a 4xx), even when the store is failing.
        await this.remove(staging).catch(() => undefined);
      },
    };
  }

  async has(key: string) {
    return (await this.stat(key)) !== null;
  }

  async stat(key: string): Promise<BlobInfo | null> {
    try {
      const head = await this.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      const touched = Number(head.Metadata?.[TOUCHED] ?? 0);
      const modified = head.LastModified?.getTime() ?? 0;
      return { key, size: head.ContentLength ?? 0, modifiedAt: new Date(Math.max(touched, modified)) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  private async get(key: string) {
    try {
      return await this.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
    } catch (err) {
      if (isNotFound(err)) throw missing(key);
      throw err;
    }
  }

  async read(key: string): Promise<Buffer> {
    const res = await this.get(key);
    if (!res.Body) throw missing(key);
    try {
      return Buffer.from(await res.Body.transformToByteArray());
    } catch (err) {
      throw unavailable(err);
    }
  }

  /**
   * The object's bytes as they arrive, without holding the file in memory. The request starts when
   * the stream is first read; a reader that goes away (a closed connection) ends the download.
   */
  stream(key: string): Readable {
    const get = () => this.get(key);
    async function* chunks() {
      const res = await get();
      if (!res.Body) throw missing(key);
      for await (const chunk of res.Body as Readable) yield chunk as Buffer;
    }
    return Readable.from(chunks(), { objectMode: false });
  }

  async open(key: string): Promise<OpenedBlob> {
    const res = await this.get(key);
    if (!res.Body) throw missing(key);
    return { size: res.ContentLength ?? null, stream: res.Body as Readable };
  }

  async delete(key: string, opts: { signal?: AbortSignal } = {}) {
    await this.remove(this.objectKey(key), opts.signal);
  }

  private async *objects(prefix: string): AsyncIterable<_Object> {
    let token: string | undefined;
    do {
      const page = await this.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      yield* page.Contents ?? [];
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /**
   * Every blob with its LastModified, one request per 1,000. A blob re-stored since may be younger
   * than listed (see TOUCHED): the sweep re-reads `stat` under the blob's lock before deleting.
   */
  async *list(): AsyncIterable<BlobInfo> {
    for await (const o of this.objects(this.blobPrefix)) {
      const key = o.Key?.slice(this.blobPrefix.length) ?? '';
      if (!isBlobKey(key)) continue;
      yield { key, size: o.Size ?? 0, modifiedAt: o.LastModified ?? new Date(0) };
    }
  }

  /** Staged uploads a crash never committed or discarded, older than `olderThan` (the sweep calls it). */
  async removeStaleTempFiles(olderThan: Date): Promise<number> {
    let removed = 0;
    for await (const o of this.objects(this.stagingPrefix)) {
      if (o.Key && o.LastModified && o.LastModified < olderThan) {
        await this.remove(o.Key);
        removed += 1;
      }
    }
    // Local temp files of uploads a crash stopped before they were sent.
    for (const name of await readdir(this.localStagingDir).catch(() => [] as string[])) {
      if (!name.endsWith('.tmp')) continue;
      const file = path.join(this.localStagingDir, name);
      const s = await stat(file).catch(() => null);
      if (s && s.mtime < olderThan) {
        await rm(file, { force: true });
        removed += 1;
      }
    }
    return removed;
  }
}
