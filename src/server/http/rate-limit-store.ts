import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { createHash } from 'node:crypto';
import type { Db } from '../db/client';
import { createRateLimitRepository } from './rate-limit.repository';

type IncrCallback = Parameters<FastifyRateLimitStore['incr']>[1];

/**
 * Counters in PostgreSQL, so every server process counts into the same window: one atomic upsert
 * per limited request. The store class @fastify/rate-limit instantiates (its options are unused).
 */
export function postgresRateLimitStore(db: Db): FastifyRateLimitStoreCtor {
  const repo = createRateLimitRepository(db);
  class PostgresRateLimitStore implements FastifyRateLimitStore {
    incr(key: string, cb: IncrCallback, timeWindow: number) {
      // Hashed: the table holds no address or email, and every key has the same small size.
      const hashed = createHash('sha256').update(key).digest('base64url');
      repo.hit(hashed, timeWindow).then(
        (r) => cb(null, { current: r.hits, ttl: r.ttlMs }),
        (err: Error) => cb(err),
      );
    }

    /** One table for every rule: the rule is part of each key (rate-limits.ts). */
    child(): FastifyRateLimitStore {
      return this;
    }
  }
  return PostgresRateLimitStore;
}
