import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { S3StoreSettings } from '../storage/s3-blob-store';

/** s3rver's built-in account: it checks request signatures against these keys. */
const ACCESS_KEY = 'S3RVER';
const SECRET_KEY = 'S3RVER';

export interface TestObjectStore {
  settings: S3StoreSettings;
  /** BLOB_STORE_URL and credentials, for a server process's environment. */
  env: Record<string, string>;
  /**
   * Moves an object's LastModified into the past, as if written then (S3 has no call for it; this
   * reaches into s3rver's folder: `<bucket>/<key>._S3rver_object`).
   */
  age(objectKey: string, when: Date): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A local S3-compatible server (s3rver: the S3 REST API over files in a temp folder) on loopback and
 * a free port, with one empty bucket. `stop` closes it by its handle and removes the folder.
 */
export async function startTestObjectStore(bucket = 'eyevu-test'): Promise<TestObjectStore> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eyevu-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  // s3rver's DeleteObject removes a folder it leaves empty, and its PutObject opens its file in a
  // folder it made a moment before, with no listener for that open's error: a delete of the last
  // staging upload racing a put of the next one threw ENOENT as an uncaught exception in the test
  // process. Every upload is staged in this folder; a file that is not an object keeps it.
  const staging = path.join(dir, bucket, 'staging');
  mkdirSync(staging, { recursive: true });
  writeFileSync(path.join(staging, '.keep'), '');
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    settings: {
      bucket,
      prefix: '',
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
    },
    env: {
      BLOB_STORE_URL: `s3://${bucket}?endpoint=${encodeURIComponent(endpoint)}`,
      AWS_ACCESS_KEY_ID: ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: SECRET_KEY,
      AWS_REGION: 'us-east-1',
    },
    async age(objectKey, when) {
      const parts = objectKey.split('/');
      const file = path.join(dir, bucket, ...parts.slice(0, -1), `${parts.at(-1)}._S3rver_object`);
      await utimes(file, when, when);
    },
    async stop() {
      const closed = server.close();
      // Clients keep connections alive; close would otherwise wait for them.
      server.httpServer?.closeAllConnections();
      await closed;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
