import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, signUp, type TestApp } from '../../test/harness';
import { createFindRepository, type TimelineFilter } from './find.repository';

/**
 * PostgreSQL only (vitest.config.ts): the plan a category's timeline page gets at scale. Without
 * its own index it walked the user's whole photos_user_sort_idx, filtering out every other category.
 */
let t: TestApp;
let client: pg.Client;
let userId: string;
beforeAll(async () => {
  t = await createTestApp();
  ({
    user: { id: userId },
  } = await signUp(t.app));
  client = new pg.Client({ connectionString: t.database.url });
  await client.connect();
  // A large library, nearly all landscapes, a few pets among the oldest, some not analysed yet.
  await client.query(
    `insert into photos (user_id, name, mime, size, width, height, original_key, preview_key, thumbnail_key,
                         taken_at, analyzed, category)
     select $1, 'p' || i, 'image/jpeg', 1, 1, 1, 'o', 'p', 't', now() - i * interval '1 minute',
            i % 97 <> 0, case when i > 19980 then 'pet' when i % 5 = 0 then null else 'landscape' end
     from generate_series(1, 20000) i`,
    [userId],
  );
  await client.query('analyze photos');
}, 60_000);
afterAll(async () => {
  await client?.end();
  await t?.close();
});

async function plan(query: { toSQL(): { sql: string; params: unknown[] } }): Promise<string> {
  const { sql, params } = query.toSQL();
  const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain (costs off) ${sql}`, params);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

describe('a category of the timeline', () => {
  const repo = () => createFindRepository(t.database.db);
  const filters: TimelineFilter[] = [
    { tsquery: null, category: 'pet' },
    { tsquery: null, category: 'uncategorized' },
  ];

  it.each(filters)('pages through its own index ($category)', async (filter) => {
    const first = await plan(repo().pageQuery(userId, 60, null, filter));
    expect(first).toContain('photos_user_category_sort_idx');
    // Ordered by the index: no sort of the category's rows.
    expect(first).not.toMatch(/\bSort\b/);
    const next = await plan(
      repo().pageQuery(
        userId,
        60,
        { at: new Date().toISOString(), id: '00000000-0000-0000-0000-000000000000' },
        filter,
      ),
    );
    expect(next).toContain('photos_user_category_sort_idx');
    expect(next).not.toMatch(/\bSort\b/);
  });

  it.each(filters)('counts through it ($category)', async (filter) => {
    expect(await plan(repo().countQuery(userId, filter))).toContain('photos_user_category_sort_idx');
  });

  it('answers the same photos as before', async () => {
    const page = await repo().page(userId, 60, null, { tsquery: null, category: 'pet' });
    expect(page.items.length).toBe(19); // 20 pets, one (19982) not analysed
    expect(page.items.every((p) => p.category === 'pet')).toBe(true);
    expect(await repo().count(userId, { tsquery: null, category: 'pet' })).toBe(19);
  });
});
