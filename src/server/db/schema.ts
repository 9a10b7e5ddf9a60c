import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  firstName: text('first_name').notNull(),
  lastName: text('last_name').notNull(),
  stripeCustomerId: text('stripe_customer_id'),
  /** IANA time zone that decides the user's calendar day (daily login); set at registration or first login. */
  timeZone: text('time_zone'),
  /** When timeZone last changed: changes are rate-limited so a day cannot be claimed twice by moving zones. */
  timeZoneSetAt: timestamp('time_zone_set_at', { withTimezone: true }),
  /** The zone timeZone replaced at timeZoneSetAt (null: none, i.e. UTC): the reward day of a change counts from its day. */
  previousTimeZone: text('previous_time_zone'),
  createdAt: createdAt(),
});

/** Only the SHA-256 of a session token is stored, so a database leak does not leak sessions. */
export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

export const passwordResets = pgTable(
  'password_resets',
  {
    id: text('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index('password_resets_user_idx').on(t.userId)],
);

/**
 * Failed sign-ins per account, a leaky bucket keyed by the SHA-256 of the normalised email (also for
 * an email without an account): `level` as it stood at `updatedAt` (features/auth/sign-in-limit.ts).
 */
export const signInFailures = pgTable(
  'sign_in_failures',
  {
    key: text('key').primaryKey(),
    level: doublePrecision('level').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('sign_in_failures_updated_idx').on(t.updatedAt)],
);

/** Browsers (SHA-256 of their device cookie) that signed in to an account: outside its failure budget. */
export const signInDevices = pgTable(
  'sign_in_devices',
  {
    id: text('id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Wrong passwords sent with this cookie since its last sign-in: past a few it is trusted no more. */
    failures: integer('failures').notNull().default(0),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.userId] }),
    index('sign_in_devices_user_idx').on(t.userId),
    index('sign_in_devices_last_used_idx').on(t.lastUsedAt),
  ],
);

export const subscriptions = pgTable('subscriptions', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  status: text('status').notNull(),
  tier: text('tier').notNull(),
  billingCycle: text('billing_cycle').notNull(),
  price: integer('price').notNull(),
  endDate: timestamp('end_date', { withTimezone: true }),
  /** 'trial' | 'upgrade' | 'stripe': where the current state came from. */
  source: text('source').notNull(),
  stripeSubscriptionId: text('stripe_subscription_id').unique(),
  cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
  /** Created-time of the newest Stripe event applied, so late, older events cannot roll state back. */
  lastEventAt: timestamp('last_event_at', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const stripeEvents = pgTable('stripe_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  processedAt: timestamp('processed_at', { withTimezone: true }).notNull().defaultNow(),
});

export const appStatus = pgTable('app_status', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  isActive: boolean('is_active').notNull().default(false),
  isMonitoring: boolean('is_monitoring').notNull().default(false),
  activeSince: timestamp('active_since', { withTimezone: true }),
  lastActivity: timestamp('last_activity', { withTimezone: true }),
});

export const activities = pgTable(
  'activities',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    app: text('app').notNull(),
    adDuration: integer('ad_duration').notNull(),
    timeSaved: integer('time_saved').notNull(),
    pointsEarned: integer('points_earned').notNull(),
    gameType: text('game_type'),
    gameScore: integer('game_score'),
    gameCompleted: boolean('game_completed'),
    eventId: text('event_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('activities_user_event_uq').on(t.userId, t.eventId),
    index('activities_user_created_idx').on(t.userId, t.createdAt),
  ],
);

/**
 * An ad break the server saw start. An activity is accepted once per ad break (its id is the
 * activity's event id), only after the ad's duration has passed, so points follow real time played.
 */
export const adBreaks = pgTable(
  'ad_breaks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    app: text('app').notNull(),
    durationSeconds: integer('duration_seconds').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    /** Set when a newer ad break of the same user replaced this one before it was recorded. */
    supersededAt: timestamp('superseded_at', { withTimezone: true }),
    /** Set when its activity was recorded. */
    recordedAt: timestamp('recorded_at', { withTimezone: true }),
  },
  (t) => [index('ad_breaks_user_started_idx').on(t.userId, t.startedAt)],
);

/**
 * Append-only. Every point a user has comes from one row here; the unique event id per user makes
 * each award idempotent (a replayed request hits the constraint and adds nothing).
 */
export const pointsLedger = pgTable(
  'points_ledger',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    source: text('source').notNull(),
    sourceEventId: text('source_event_id').notNull(),
    points: integer('points').notNull(),
    message: text('message'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('points_ledger_user_event_uq').on(t.userId, t.sourceEventId),
    index('points_ledger_user_created_idx').on(t.userId, t.createdAt),
    /** The login days (one entry a day) without reading the user's other entries; `source` must be the literal 'login'. */
    index('points_ledger_user_login_idx')
      .on(t.userId, t.createdAt)
      .where(sql`${t.source} = 'login'`),
  ],
);

/**
 * Each user's running totals of the ledger and the activities, kept by triggers on their INSERTs in
 * the same transaction (migration 0011): the rewards snapshot reads this row instead of summing all
 * of the user's entries, whose number the user drives (ad breaks, uploads past the daily cap). No
 * row: all zero. Never written by the application.
 */
export const pointsTotals = pgTable('points_totals', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  /** sum(points_ledger.points) */
  points: bigint('points', { mode: 'number' }).notNull().default(0),
  /** Ledger entries of source 'upload' (paid or past the day's cap). */
  uploadEntries: bigint('upload_entries', { mode: 'number' }).notNull().default(0),
  /** count(*) of activities (ads skipped). */
  activityCount: bigint('activity_count', { mode: 'number' }).notNull().default(0),
  /** sum(activities.time_saved) */
  timeSaved: bigint('time_saved', { mode: 'number' }).notNull().default(0),
});

export const achievements = pgTable(
  'achievements',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    achievementId: text('achievement_id').notNull(),
    unlockedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.achievementId] })],
);

export const albums = pgTable(
  'albums',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    isSmartAlbum: boolean('is_smart_album').notNull().default(false),
    /** Category (or 'people') a smart album mirrors; null for albums users make. */
    smartKey: text('smart_key'),
    /** The `Idempotency-Key` the album was made under (null: sent without one); one album per key and user. */
    idempotencyKey: text('idempotency_key'),
    /** What that creation asked for (name, description, photos), so a reuse of its key for another album is told apart. */
    requestHash: text('request_hash'),
    createdAt: createdAt(),
  },
  (t) => [
    index('albums_user_idx').on(t.userId),
    uniqueIndex('albums_user_smart_uq').on(t.userId, t.smartKey),
    uniqueIndex('albums_user_idempotency_uq').on(t.userId, t.idempotencyKey),
  ],
);

export const photos = pgTable(
  'photos',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    mime: text('mime').notNull(),
    size: integer('size').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    /** Content-addressed blob keys (sha256): the original is never overwritten. */
    originalKey: text('original_key').notNull(),
    previewKey: text('preview_key').notNull(),
    thumbnailKey: text('thumbnail_key').notNull(),
    thumbhash: text('thumbhash'),
    takenAt: timestamp('taken_at', { withTimezone: true }),
    exif: jsonb('exif').$type<Record<string, unknown>>(),
    uploadedAt: timestamp('uploaded_at', { withTimezone: true }).notNull().defaultNow(),
    /** Stable handle for a demo-library photo ('editor' is the photo editor's default). */
    demoKey: text('demo_key'),
    analyzed: boolean('analyzed').notNull().default(false),
    category: text('category'),
    tags: jsonb('tags')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    description: text('description'),
    analysisError: text('analysis_error'),
    faceCount: integer('face_count'),
    albumId: uuid('album_id').references(() => albums.id, { onDelete: 'set null' }),
    /** The applied filter version shown instead of the original, if any. */
    currentVersionId: uuid('current_version_id'),
    /** Marked with the viewer's heart; the Favorites album lists these. */
    favorite: boolean('favorite').notNull().default(false),
    /** The file name as uploaded (null for the demo library and photos stored before it was kept). */
    fileName: text('file_name'),
  },
  (t) => [
    index('photos_user_uploaded_idx').on(t.userId, t.uploadedAt.desc(), t.id.desc()),
    index('photos_user_favorite_idx')
      .on(t.userId, t.uploadedAt.desc(), t.id.desc())
      .where(sql`favorite`),
    uniqueIndex('photos_user_demo_uq').on(t.userId, t.demoKey),
  ],
);

export const albumPhotos = pgTable(
  'album_photos',
  {
    albumId: uuid('album_id')
      .notNull()
      .references(() => albums.id, { onDelete: 'cascade' }),
    photoId: uuid('photo_id')
      .notNull()
      .references(() => photos.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.albumId, t.photoId] }), index('album_photos_photo_idx').on(t.photoId)],
);

export const photoVersions = pgTable(
  'photo_versions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    photoId: uuid('photo_id')
      .notNull()
      .references(() => photos.id, { onDelete: 'cascade' }),
    filterName: text('filter_name').notNull(),
    intensity: integer('intensity').notNull(),
    originalKey: text('original_key').notNull(),
    previewKey: text('preview_key').notNull(),
    thumbnailKey: text('thumbnail_key').notNull(),
    size: integer('size').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('photo_versions_photo_idx').on(t.photoId)],
);

/** Database-backed queue: survives restarts and is shared by every server process. */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    photoId: uuid('photo_id').references(() => photos.id, { onDelete: 'cascade' }),
    status: text('status').notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    runAfter: timestamp('run_after', { withTimezone: true }).notNull().defaultNow(),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    durationMs: real('duration_ms'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('jobs_status_run_idx').on(t.status, t.runAfter),
    index('jobs_user_idx').on(t.userId),
    uniqueIndex('jobs_pending_photo_uq')
      .on(t.kind, t.photoId)
      .where(sql`status in ('queued', 'running')`),
    // The claim's walk over users with pending jobs (migration 0007, written by hand).
    index('jobs_pending_user_idx')
      .on(t.userId, t.id)
      .where(sql`status in ('queued', 'running')`),
  ],
);

/**
 * Request limits shared by every server process on PostgreSQL (http/rate-limit-store.ts): one
 * fixed-window counter per rule and key. `key` is a SHA-256 of the rule and the client's key, so no
 * address or email is stored; `resets_at` is in ms since the epoch, by the database's clock.
 */
export const rateLimitCounters = pgTable(
  'rate_limit_counters',
  {
    key: text('key').primaryKey(),
    hits: integer('hits').notNull(),
    resetsAt: bigint('resets_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('rate_limit_counters_resets_idx').on(t.resetsAt)],
);

/**
 * Passes over every row that a database needs once, not at every start (the smart-album repair,
 * `db/passes.ts`). A pass is due while `done` (the `wanted` it completed) is behind `wanted`;
 * a write that leaves rows for it to bring in step again raises `wanted`. `resume_after` is how far
 * the pass under way for `resume_for` had come, so one cut short by a shutdown goes on from there.
 */
export const dataPasses = pgTable('data_passes', {
  name: text('name').primaryKey(),
  wanted: integer('wanted').notNull().default(1),
  done: integer('done'),
  resumeFor: integer('resume_for'),
  resumeAfter: text('resume_after'),
});
