import { readFileSync, readdirSync } from 'node:fs';
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
