import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
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

export async function setup(project: TestProject) {
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
  }
}
