import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dir = fileURLToPath(new URL('./migrations', import.meta.url));
const journal = JSON.parse(readFileSync(path.join(dir, 'meta', '_journal.json'), 'utf8')) as {
  entries: Array<{ idx: number; when: number; tag: string }>;
};

describe('migrations journal', () => {
  it("each migration's time is after the one before it", () => {
    // The migrator applies only migrations newer than the last one a database has, so one dated
    // before its predecessor (drizzle-kit stamps the clock, and 0004/0006 were dated by hand) is
    // silently skipped on every database that already ran the earlier ones.
    const whens = journal.entries.map((e) => e.when);
    for (let i = 1; i < whens.length; i++) expect(whens[i]).toBeGreaterThan(whens[i - 1]!);
  });

  it('lists every SQL file once, in order', () => {
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.sql'))
      .sort();
    expect(journal.entries.map((e) => `${e.tag}.sql`)).toEqual(files);
    expect(journal.entries.map((e) => e.idx)).toEqual(files.map((_, i) => i));
  });
});

describe('migrations only add to the schema', () => {
  // The release before runs on the schema this one migrated: during a rolling deploy, on a machine
  // that restarts then, and after a rollback (client.ts starts on a database a later release
  // migrated, with a warning). So a migration may add tables, columns that are nullable or have a
  // default, indexes and triggers, but not take away or narrow what an earlier release reads and
  // writes. A change of that kind is made in two releases: stop using it, then remove it.
  const narrowing: Array<[RegExp, string]> = [
    [/\bDROP\s+(TABLE|COLUMN|VIEW|SCHEMA|TYPE)\b/i, 'drops what the release before reads'],
    [/\bRENAME\b/i, 'renames what the release before reads'],
    [/\bSET\s+NOT\s+NULL\b/i, 'refuses writes the release before makes'],
    [/\bALTER\s+COLUMN\s+"?\w+"?\s+(SET\s+DATA\s+)?TYPE\b/i, 'changes a type the release before writes'],
    [
      /\bADD\s+COLUMN\b(?:(?!\bDEFAULT\b|\bGENERATED\b)[^;,])*\bNOT\s+NULL\b(?:(?!\bDEFAULT\b|\bGENERATED\b)[^;,])*(;|,|$)/i,
      'adds a NOT NULL column without a default, which the release before never fills',
    ],
  ];
  const withoutComments = (text: string) => text.replace(/--[^\n]*/g, '');

  it.each(journal.entries.map((e) => e.tag))('%s', (tag) => {
    const text = withoutComments(readFileSync(path.join(dir, `${tag}.sql`), 'utf8'));
    for (const [pattern, why] of narrowing) expect(pattern.test(text), `${tag} ${why}`).toBe(false);
  });

  it('the check catches each narrowing change', () => {
    for (const bad of [
      'ALTER TABLE "photos" DROP COLUMN "thumbhash";',
      'DROP TABLE "app_status";',
      'ALTER TABLE "albums" RENAME COLUMN "name" TO "title";',
      'ALTER TABLE "users" ALTER COLUMN "time_zone" SET NOT NULL;',
      'ALTER TABLE "photos" ALTER COLUMN "size" SET DATA TYPE bigint;',
      'ALTER TABLE "albums" ADD COLUMN "cover" uuid NOT NULL;',
    ]) {
      expect(
        narrowing.some(([p]) => p.test(bad)),
        bad,
      ).toBe(true);
    }
    for (const ok of [
      'ALTER TABLE "albums" ADD COLUMN "cover" uuid;',
      'ALTER TABLE "photo_library" ADD COLUMN "counted" integer DEFAULT 0 NOT NULL;',
      'ALTER TABLE "albums" ADD COLUMN "kind" text NOT NULL DEFAULT \'user\';',
      'DROP INDEX "photos_user_sort_idx";',
    ]) {
      expect(
        narrowing.some(([p]) => p.test(ok)),
        ok,
      ).toBe(false);
    }
  });
});

/** A migrations folder holding the journal's migrations before `tag` only: a database as it was then. */
function foldersBefore(tag: string): { dir: string; cleanup: () => void } {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'eyevu-migrations-'));
  mkdirSync(path.join(tmp, 'meta'));
  const entries = journal.entries.slice(
    0,
    journal.entries.findIndex((e) => e.tag === tag),
  );
  for (const e of entries) copyFileSync(path.join(dir, `${e.tag}.sql`), path.join(tmp, `${e.tag}.sql`));
  const full = JSON.parse(readFileSync(path.join(dir, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
  writeFileSync(
    path.join(tmp, 'meta', '_journal.json'),
    JSON.stringify({ ...full, entries: full.entries.slice(0, entries.length) }),
  );
  return { dir: tmp, cleanup: () => rmSync(tmp, { recursive: true, force: true }) };
}

describe('0011_points_totals', () => {
  it("fills each user's totals from the rows written before it, and the triggers keep them after", async () => {
    const before = foldersBefore('0011_points_totals');
    const pg = await PGlite.create('memory://');
    try {
      await migrate(drizzle(pg), { migrationsFolder: before.dir });
      const user = async (email: string) =>
        (
          await pg.query<{ id: string }>(
            `insert into users (email, password_hash, first_name, last_name) values ($1, 'x', 'A', 'B') returning id`,
            [email],
          )
        ).rows[0]!.id;
      const [a, b, c] = [await user('a@example.com'), await user('b@example.com'), await user('c@example.com')];
      await pg.query(
        `insert into points_ledger (user_id, source, source_event_id, points) values
          ($1, 'login', 'login:2026-01-01', 10), ($1, 'upload', 'upload:1', 5), ($1, 'upload', 'upload:2', 0),
          ($2, 'activity', 'activity:1', 7)`,
        [a, b],
      );
      await pg.query(
        `insert into activities (user_id, app, ad_duration, time_saved, points_earned, event_id) values
          ($1, 'YouTube', 30, 30, 3, 'e1'), ($1, 'TikTok', 20, 20, 2, 'e2'), ($2, 'YouTube', 30, 30, 3, 'e1')`,
        [b, c],
      );

      await migrate(drizzle(pg), { migrationsFolder: dir });
      const totals = async () =>
        (
          await pg.query<Record<string, unknown>>(
            `select user_id, points::int, upload_entries::int, activity_count::int, time_saved::int
              from points_totals order by user_id`,
          )
        ).rows;
      const row = (id: string, points: number, uploads: number, count: number, saved: number) => ({
        user_id: id,
        points,
        upload_entries: uploads,
        activity_count: count,
        time_saved: saved,
      });
      const want = [row(a, 15, 2, 0, 0), row(b, 7, 0, 2, 50), row(c, 0, 0, 1, 30)].sort((x, y) =>
        x.user_id.localeCompare(y.user_id),
      );
      expect(await totals()).toEqual(want);

      // After it, the triggers add to the filled rows.
      await pg.query(
        `insert into points_ledger (user_id, source, source_event_id, points) values ($1, 'upload', 'upload:3', 5)`,
        [a],
      );
      await pg.query(
        `insert into activities (user_id, app, ad_duration, time_saved, points_earned, event_id) values ($1, 'YouTube', 30, 30, 3, 'e2')`,
        [c],
      );
      expect(await totals()).toEqual(
        want.map((r) =>
          r.user_id === a
            ? { ...r, points: 20, upload_entries: 3 }
            : r.user_id === c
              ? { ...r, activity_count: 2, time_saved: 60 }
              : r,
        ),
      );
    } finally {
      await pg.close();
      before.cleanup();
    }
  });
});
