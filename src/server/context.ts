import type { Config } from './config.js';
import type { Database, Db } from './db/client.js';
import type { BlobStore } from './storage/blob-store.js';
import type { SubscriptionReader } from './features/subscriptions/subscription-reader.js';

export interface UserCreatedHook {
  (user: { id: string; email: string }): Promise<void>;
}

/** What every feature is handed when it registers: configuration, the database and app-wide hooks. */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  /** Server-side gating: `isActive(userId)`, `requireActive(userId, message?)` (403), `get(userId)`. */
  subscriptions: SubscriptionReader;
  /** Run after an account is created (e.g. seeding the demo library); failures are logged. */
  onUserCreated: UserCreatedHook[];
  /** Content-addressed storage of photo originals and derivatives (a folder under DATA_DIR by default). */
  blobs: BlobStore;
  /** Run after an upload request stored `count` photos (e.g. the upload reward); failures are logged. */
  onPhotosUploaded?: Array<(userId: string, count: number, batchId: string) => Promise<void>>;
  /** Run for every photo stored, uploaded or demo (e.g. queueing its analysis); failures are logged. */
  onPhotoIngested?: Array<(photo: { id: string; userId: string }) => Promise<void>>;
  /** Background work to stop on shutdown. */
  onClose: Array<() => Promise<void>>;
  /** The clock of time rules (ad breaks); injectable so tests never sleep. */
  now: () => Date;
}
