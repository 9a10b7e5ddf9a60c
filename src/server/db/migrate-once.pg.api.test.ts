import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from './client';

/**
 * Machines behind one proxy each start with the same DATABASE_URL (WEB_CONCURRENCY's processes do
 * not: their primary migrates first). A deploy starts them together, so they migrate one database at
 * the same moment: each must wait for the one migrating, then find nothing left to do.
 */
const adminUrl = process.env.TEST_DATABASE_URL!;
const name = `eyevu_migrate_${randomBytes(6).toString('hex')}`;

afterAll(async () => {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
});

describe('migrations on one PostgreSQL database', () => {
  it('run once when several servers start on an empty database at the same moment', async () => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    // Empty, not the migrated template the other tests start from.
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;

    const starts = await Promise.allSettled(
      [1, 2, 3].map(() => openDatabase({ databaseUrl: url.toString(), pgliteDir: '' })),
    );
    const opened = starts.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      expect(starts.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []))).toEqual([]);
      const check = new pg.Client({ connectionString: url.toString() });
      await check.connect();
      try {
        const { rows } = await check.query<{ hash: string; n: string }>(
          'select hash, count(*) as n from drizzle.__drizzle_migrations group by hash',
        );
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.filter((r) => r.n !== '1')).toEqual([]);
      } finally {
        await check.end();
      }
    } finally {
      await Promise.all(opened.map((d: Database) => d.close()));
    }
  });
});
