import path from 'node:path';
import type { Config } from '../config';
import { LocalBlobStore, type BlobStore } from './blob-store';
import type { StoreLogger } from './s3-blob-store';

export interface OpenedBlobStore {
  blobs: BlobStore;
  /** Where photos are kept, for the start-up log line. */
  describe: string;
  close(): Promise<void>;
}

/**
 * The configured store: the local folder by default, an S3-compatible bucket with BLOB_STORE_URL.
 * The AWS SDK is loaded only then, and the bucket is checked before the server takes requests, so a
 * wrong name or key stops the start with a message instead of failing the first upload.
 */
export async function openBlobStore(
  config: Pick<Config, 'blobDir' | 'dataDir' | 'objectStore'>,
  log?: StoreLogger,
): Promise<OpenedBlobStore> {
  if (!config.objectStore) {
    return { blobs: new LocalBlobStore(config.blobDir), describe: config.blobDir, close: async () => {} };
  }
  const { S3BlobStore } = await import('./s3-blob-store');
  // Uploads wait on the data volume while they are hashed; the local blob folder stays unused.
  const store = new S3BlobStore(config.objectStore, {
    localStagingDir: path.join(config.dataDir, 'upload-staging'),
    log,
  });
  try {
    await store.check();
  } catch (err) {
    store.close();
    throw err;
  }
  const { bucket, prefix, endpoint } = config.objectStore;
  return {
    blobs: store,
    describe: `s3://${bucket}/${prefix}${endpoint ? ` at ${endpoint}` : ''}`,
    close: async () => store.close(),
  };
}
