import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fromRoot } from '../lib/paths';

export const migrationsDir = fromRoot('src/server/db/migrations');

interface Journal {
  entries: Array<{ idx: number; when: number; tag: string; version: string; breakpoints: boolean }>;
}

export function readJournal(): Journal & Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(migrationsDir, 'meta', '_journal.json'), 'utf8')) as Journal &
    Record<string, unknown>;
}

/**
 * A migrations folder holding some of the release's migrations (the first `which` of them, or
 * those of these tags) and any `extra` after them: a database as an earlier release left it, or a
 * later release's.
 */
export function migrationsFolder(
  which: number | string[],
  extra: Array<{ tag: string; sql: string; when?: number }> = [],
): { dir: string; cleanup: () => void } {
  const journal = readJournal();
  const entries = journal.entries
    .filter((e, i) => (typeof which === 'number' ? i < which : which.includes(e.tag)))
    .map((e, idx) => ({ ...e, idx }));
  if (typeof which !== 'number' && entries.length !== which.length) throw new Error(`no migration in ${which}`);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'eyevu-migrations-'));
  mkdirSync(path.join(tmp, 'meta'));
  for (const e of entries) copyFileSync(path.join(migrationsDir, `${e.tag}.sql`), path.join(tmp, `${e.tag}.sql`));
  let when = journal.entries.at(-1)!.when;
  for (const x of extra) {
    when = x.when ?? when + 100_000;
    writeFileSync(path.join(tmp, `${x.tag}.sql`), x.sql);
    entries.push({ idx: entries.length, version: '7', when, tag: x.tag, breakpoints: true });
  }
  writeFileSync(path.join(tmp, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries }));
  return { dir: tmp, cleanup: () => rmSync(tmp, { recursive: true, force: true }) };
}
