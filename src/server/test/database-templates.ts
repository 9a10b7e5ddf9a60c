import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../db/client';
import { fromRoot } from '../lib/paths';

/**
 * Vitest global setup: one migrated PGlite data dir per run, dumped to a file, so that every test
 * database starts from it instead of running initdb and the migrations again (about 4 s of CPU
 * each, and a run opens dozens). The file is named after the migrations and PGlite's version, so a
 * changed migration makes a new one.
 */
const migrationsFolder = fromRoot('src/server/db/migrations');
const templateDir = fromRoot('.tmp/pglite-template');

function templateKey(): string {
  const h = createHash('sha256');
  h.update(JSON.parse(readFileSync(fromRoot('node_modules/@electric-sql/pglite/package.json'), 'utf8')).version);
  for (const dir of [migrationsFolder, path.join(migrationsFolder, 'meta')]) {
    for (const f of readdirSync(dir).sort()) {
      const file = path.join(dir, f);
      if (f.endsWith('.sql') || f.endsWith('.json')) h.update(f).update(readFileSync(file));
    }
  }
  return h.digest('hex').slice(0, 16);
}

/**
 * On PostgreSQL, the same idea with the server's own means: one migrated database per run that
 * every test database is created from (`create database ... template`).
 */
async function postgresTemplate(adminUrl: string): Promise<string> {
  const name = `eyevu_template_${templateKey()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount) return name;
    const partial = `${name}_${process.pid}`;
    await admin.query(`create database ${partial}`);
    const url = new URL(adminUrl);
    url.pathname = `/${partial}`;
    const database = await openDatabase({ databaseUrl: url.toString(), pgliteDir: '' });
    await database.close();
    await admin.query(`alter database ${partial} rename to ${name}`);
    return name;
  } finally {
    await admin.end();
  }
}

export async function setup(project: TestProject) {
  if (process.env.EYEVU_TEST_DB === 'postgres' && process.env.TEST_DATABASE_URL) {
    project.provide('postgresTemplate', await postgresTemplate(process.env.TEST_DATABASE_URL));
    return;
  }
  const file = path.join(templateDir, `${templateKey()}.tar`);
  if (!existsSync(file)) {
    mkdirSync(templateDir, { recursive: true });
    for (const old of readdirSync(templateDir)) rmSync(path.join(templateDir, old), { force: true });
    const pg = await PGlite.create('memory://');
    await migrate(drizzle(pg), { migrationsFolder });
    const dump = await pg.dumpDataDir('none');
    await pg.close();
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, file);
  }
  project.provide('pgliteTemplate', file);
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate?: string;
    postgresTemplate?: string;
  }
}
