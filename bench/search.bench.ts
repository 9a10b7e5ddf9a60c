/**
 * Search and timeline at 100,000 photos: one user's library of 100,000 rows (names, categories,
 * tags, descriptions, cameras and dates taken spread over five years) plus a second user's 1,000,
 * in PGlite as the server runs it (migrations, VACUUM ANALYZE). Times the find feature's queries
 * (first page of 120 + the count, as `GET /api/photos/timeline?q=` makes them) against the plain
 * timeline's first page in the same run. Target: every search within 3x of the plain timeline page.
 *
 *   npx tsx bench/search.bench.ts [runs=7]
 */
import { sql } from 'drizzle-orm';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { searchWords, toPrefixTsquery } from '../src/domain/find.js';
import { openDatabase } from '../src/server/db/client.js';
import { createFindRepository } from '../src/server/features/find/find.repository.js';

const N = 100_000;
const PAGE = 120;
const TARGET_RATIO = 3;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const runs = Number(process.argv[2] ?? 7);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eyevu-search-bench-'));
  const database = await openDatabase({ pgliteDir: path.join(dir, 'db') });
  try {
    const db = database.db;
    const t0 = performance.now();
    const users = (await db.execute(sql`
      insert into users (email, first_name, last_name, password_hash)
      values ('big@example.com', 'B', 'B', 'x'), ('other@example.com', 'O', 'O', 'x') returning id`)) as unknown as {
      rows: Array<{ id: string }>;
    };
    const [big, other] = users.rows.map((r) => r.id) as [string, string];
    const seed = (userId: string, n: number) => sql`
      insert into photos (user_id, name, mime, size, width, height, original_key, preview_key, thumbnail_key,
                          taken_at, exif, uploaded_at, analyzed, category, tags, description)
      select ${userId}, 'IMG_' || i, 'image/jpeg', 1000, 10, 10, 'k', 'k', 'k',
             case when i % 4 = 0 then null else timestamptz '2020-01-01' + (i * interval '26 minutes') end,
             case i % 3 when 0 then '{"Make":"Apple","Model":"iPhone 13"}'::jsonb
                        when 1 then '{"Make":"Canon","Model":"EOS R6"}'::jsonb else null end,
             now() - (i * interval '1 second'), true,
             (array['people','animals','food_drink','nature_landscape','vehicles_transport','city_architecture'])[1 + i % 6],
             case i % 6 when 1 then '["dog","grass"]'::jsonb when 2 then '["burger","plate"]'::jsonb else '[]'::jsonb end,
             'photo number ' || i
      from generate_series(1, ${n}) as i`;
    await db.execute(seed(big, N));
    await db.execute(seed(other, 1000));
    await db.execute(sql`vacuum analyze photos`);
    console.log(`seeded ${N} + 1000 photos in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const repo = createFindRepository(db);
    const run = async (q: string) => {
      const tsq = q ? toPrefixTsquery(searchWords(q)) : null;
      const t = performance.now();
      // As the service does: the count first, no page query when nothing matches.
      const total = await repo.count(big, { tsquery: tsq });
      const items = total === 0 ? 0 : (await repo.page(big, PAGE, null, { tsquery: tsq })).items.length;
      return { ms: performance.now() - t, items, total };
    };
    const queries = ['', 'dog', 'iphone', '2024', 'march 2021', 'food', 'number 99999', 'zebra'];
    const times = new Map<string, number[]>(queries.map((q) => [q, []]));
    const found = new Map<string, number>();
    await run('');
    for (let r = 0; r < runs; r++) {
      for (const q of queries) {
        const x = await run(q);
        times.get(q)!.push(x.ms);
        found.set(q, x.total);
      }
    }
    const base = median(times.get('')!);
    console.log('\n| query | matches | first page + count, median ms | ratio to plain timeline | met (<= 3x) |');
    console.log('|---|---|---|---|---|');
    for (const q of queries) {
      const m = median(times.get(q)!);
      console.log(
        `| ${q ? `"${q}"` : '(plain timeline)'} | ${found.get(q)} | ${m.toFixed(1)} | ${(m / base).toFixed(2)} | ${m / base <= TARGET_RATIO ? 'yes' : 'NO'} |`,
      );
    }
    const plan = (await db.execute(sql`explain select id from photos
      where user_id = ${big} and search_doc @@ to_tsquery('simple', 'zebra:*')
      order by sort_at desc nulls last, id desc nulls last limit 121`)) as unknown as {
      rows: Array<Record<string, string>>;
    };
    console.log('\nplan of a rare word:\n' + plan.rows.map((r) => Object.values(r)[0]).join('\n'));
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
