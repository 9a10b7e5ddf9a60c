import type { Config } from './config';
import type { Database, Db } from './db/client';
import type { UploadReward } from '@contract/photos';
import type { ServerActivity } from './lib/server-activity';
import type { BlobStore } from './storage/blob-store';
import type { Ledger } from './features/rewards/index';
import type { SubscriptionReader } from './features/subscriptions/index';

export interface UploadedPhoto {
  photoId: string;
  /** SHA-256 of the original as sent (its blob key): the same bytes give the same hash. */
  contentHash: string;
}

/**
 * Runs `work` once the request at hand has been answered and the server is quiet (no request in
 * flight, the grace after the last upload's answer over; at most QUIET_MAX_WAIT_MS later).
 */
export type AfterAnswer = (work: () => void | Promise<void>) => void;

/** Run once after photos were deleted together (`POST /api/photos/delete`), with all their ids. */
export type DeleteHook = (userId: string, photoIds: string[]) => Promise<void>;

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
  /** The points ledger, the only way points are added (rewards, activities, app activation). */
  ledger: Ledger;
  /** Run after an account is created (e.g. seeding the demo library); failures are logged. */
  onUserCreated: UserCreatedHook[];
  /** Content-addressed storage of photo originals and derivatives (a folder under DATA_DIR by default). */
  blobs: BlobStore;
  /**
   * Run after an upload request stored photos, with each one's content hash (the original's
   * SHA-256 blob key). A listener may answer a reward (the upload reward); failures are logged.
   */
  onPhotosUploaded?: Array<(userId: string, uploads: UploadedPhoto[]) => Promise<UploadReward | void>>;
  /** Run after a photo was deleted (e.g. bringing smart albums in step); failures are logged. */
  onPhotoDeleted?: Array<(photo: { id: string; userId: string }) => Promise<void>>;
  /** Run once after several photos were deleted in one request; failures are logged. */
  onPhotosDeleted?: DeleteHook[];
  /**
   * Run for every photo stored, uploaded or demo (e.g. queueing its analysis); failures are logged.
   * `afterAnswer` defers work until the request that stored the photo has been answered (at once
   * when no request is waiting), so background work does not slow the upload itself. `thumbnail`
   * is the stored thumbnail's bytes when the ingest has them in hand (an upload), so a listener
   * need not read them back.
   */
  onPhotoIngested?: Array<
    (photo: { id: string; userId: string; thumbnail?: Buffer }, afterAnswer: AfterAnswer) => Promise<void>
  >;
  /**
   * Requests and uploads in flight in this process: background work (analysis claims, an
   * upload's fingerprint) waits for a quiet moment (within a bound), so it does not slow them down.
   */
  activity: ServerActivity;
  /** Background work to stop on shutdown. */
  onClose: Array<() => Promise<void>>;
  /** The clock of time rules (ad breaks); injectable so tests never sleep. */
  now: () => Date;
  /**
   * The clock a test handed in (BuildOptions.now), absent in a real server: windows several
   * machines share are kept by the database's clock then, and by this one only in tests.
   */
  testNow?: () => Date;
}
