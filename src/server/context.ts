import type { Config } from './config.js';
import type { Database, Db } from './db/client.js';
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
  /** Background work to stop on shutdown. */
  onClose: Array<() => Promise<void>>;
}
