import { utimes } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../db/client';
import type { BlobInfo, BlobStore } from '../../storage/blob-store';
import { createTestApp, type TestApp } from '../../test/harness';
import { createPhotosRepository } from './photos.repository';
import { createPhotosService } from './photos.service';

/**
 * Every server process sweeps the store for orphans at its start and every 6 hours. Processes (and
 * machines) on one PostgreSQL database sweep one at a time: a sweep that finds another under way
 * skips its turn instead of listing the whole store and locking its keys a second time.
 */
describe('the orphan sweep across processes on PostgreSQL', () => {
  let t: TestApp;
  /** A second server process: its own pool on the same database. */
  let other: Database;
  beforeAll(async () => {
    t = await createTestApp();
    other = await openDatabase({ databaseUrl: t.database.url!, pgliteDir: '' });
  });
  afterAll(async () => {
    await other.close();
    await t.close();
  });

  const serviceOn = (database: Database, blobs: BlobStore) =>
    createPhotosService({
      repo: createPhotosRepository(database.db),
      tierOf: async () => 'free',
      blobs,
      config: t.config,
      hooks: {},
      log: () => {},
      runAlone: database.runAlone,
    });

  it('runs in one process at a time; the other skips its turn, and sweeps once the first is done', async () => {
    const blobs = t.app.ctx.blobs;
    const orphan = await blobs.put(Buffer.from('orphan swept by one process only'));
    const old = new Date(Date.now() - 60 * 60 * 1000);
    await utimes(path.join(t.config.blobDir, orphan.slice(0, 2), orphan.slice(2, 4), orphan), old, old);

    // The first process's sweep holds still inside its listing until the test lets it go on.
    let listed!: () => void;
    const listing = new Promise<void>((resolve) => (listed = resolve));
    let goOn!: () => void;
    const held = new Promise<void>((resolve) => (goOn = resolve));
    const heldStore = new Proxy(blobs, {
      get(target, prop) {
        if (prop === 'list') {
          return async function* (): AsyncIterable<BlobInfo> {
            listed();
            await held;
            yield* target.list();
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    let otherLists = 0;
    const countedStore = new Proxy(blobs, {
      get(target, prop) {
        if (prop === 'list') {
          return () => {
            otherLists += 1;
            return target.list();
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

    const first = serviceOn(t.database, heldStore).sweepOrphanBlobs();
    await listing;
    const second = await serviceOn(other, countedStore).sweepOrphanBlobs();
    expect(second).toMatchObject({ skipped: true, removed: 0 });
    expect(otherLists).toBe(0);
    expect(await blobs.has(orphan)).toBe(true);

    goOn();
    expect(await first).toMatchObject({ skipped: false, removed: 1 });
    expect(await blobs.has(orphan)).toBe(false);

    // The gate is given back when a sweep ends: the other process's next turn runs.
    expect(await serviceOn(other, countedStore).sweepOrphanBlobs()).toMatchObject({ skipped: false });
    expect(otherLists).toBe(1);
  });

  it('gives the gate back when a sweep fails, so the next turn of any process runs', async () => {
    const failing = new Proxy(t.app.ctx.blobs, {
      get(target, prop) {
        if (prop === 'list') {
          // eslint-disable-next-line require-yield
          return async function* (): AsyncIterable<BlobInfo> {
            throw new Error('the store is down');
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await expect(serviceOn(t.database, failing).sweepOrphanBlobs()).rejects.toThrow('the store is down');
    expect(await serviceOn(other, t.app.ctx.blobs).sweepOrphanBlobs()).toMatchObject({ skipped: false });
    expect(await serviceOn(t.database, t.app.ctx.blobs).sweepOrphanBlobs()).toMatchObject({ skipped: false });
  });
});
