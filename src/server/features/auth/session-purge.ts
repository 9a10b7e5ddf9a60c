import type { AuthRepository } from './auth.repository';
import { SIGN_IN_BUDGET } from './sign-in-limit';

/** How often expired sessions are purged (and once at start). */
export const SESSION_PURGE_EVERY_MS = 60 * 60 * 1000;
/** Sessions deleted per statement: each holds its row locks only briefly. */
export const SESSION_PURGE_BATCH = 1_000;
/** Batches per run at most, so one run stays short; a larger backlog is finished by the next runs. */
export const SESSION_PURGE_MAX_BATCHES = 100;

/**
 * Deletes the sessions expired at `now` in batches, until one comes back short or the run's
 * bound is reached. Answers how many were deleted.
 */
export async function purgeExpiredSessions(
  repo: Pick<AuthRepository, 'deleteExpiredSessions'>,
  now: Date,
  opts: { batch?: number; maxBatches?: number } = {},
): Promise<number> {
  const batch = opts.batch ?? SESSION_PURGE_BATCH;
  const maxBatches = opts.maxBatches ?? SESSION_PURGE_MAX_BATCHES;
  let deleted = 0;
  for (let i = 0; i < maxBatches; i++) {
    const n = await repo.deleteExpiredSessions(now, batch);
    deleted += n;
    if (n < batch) break;
  }
  return deleted;
}

/**
 * Deletes drained sign-in failure buckets, browsers unused for their standing's lifetime
 * (sign-in-limit.ts) and expired reset tokens, in the same bounded batches: a spray over many emails
 * leaves a bucket each, and every forgot-password of an account a token.
 */
export async function purgeSpentAuthRecords(
  repo: Pick<AuthRepository, 'deleteSpentSignInRecords' | 'deleteExpiredResets'>,
  /** A test's clock; by default the database's, which keeps them (auth.repository.ts). */
  now: Date | undefined,
  opts: { batch?: number; maxBatches?: number } = {},
): Promise<void> {
  const batch = opts.batch ?? SESSION_PURGE_BATCH;
  const maxBatches = opts.maxBatches ?? SESSION_PURGE_MAX_BATCHES;
  for (let i = 0; i < maxBatches; i++) {
    if ((await repo.deleteSpentSignInRecords(now, SIGN_IN_BUDGET, batch)) < batch) break;
  }
  for (let i = 0; i < maxBatches; i++) {
    if ((await repo.deleteExpiredResets(now, batch)) < batch) break;
  }
}

/**
 * Purges expired sessions now and then every `everyMs` (a timer that never keeps the process
 * alive), one run at a time, on the server's clock. Expired sessions were never read again, but
 * without this they stayed in the table for ever. `stop` clears the timer and waits for a run
 * under way, so the database is not closed under it.
 */
export function startSessionPurge(deps: {
  purge: (now: Date) => Promise<number>;
  now: () => Date;
  log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
  everyMs?: number;
}) {
  let running: Promise<void> | null = null;
  const run = (): Promise<void> => {
    running ??= deps
      .purge(deps.now())
      .then((deleted) => {
        if (deleted > 0) deps.log.info({ deleted }, 'expired sessions purged');
      })
      .catch((err: unknown) => deps.log.error({ err }, 'expired session purge failed'))
      .finally(() => {
        running = null;
      });
    return running;
  };
  void run();
  const timer = setInterval(() => void run(), deps.everyMs ?? SESSION_PURGE_EVERY_MS);
  timer.unref();
  return {
    run,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
