/**
 * `npm run bench`: builds the app (under the shared e2e lock), starts it on a free port with a
 * temporary DATA_DIR, runs P1-P6, prints one table and writes bench/results/latest.{json,md}.
 * P3 runs on PGlite and then on a throwaway PostgreSQL cluster (P3 alone: `npx tsx bench/api.bench.ts`).
 * A benchmark that fails becomes an 'error' row; the others still run. Never fails the process
 * because a target is missed: benchmarks record, they do not gate.
 *
 *   npm run bench            BENCH_SKIP_BUILD=1 npm run bench   (dist/ known fresh)
 */
import os from 'node:os';
import { runApi, runApiPostgres } from './api.bench.js';
import { runEditor } from './editor.bench.js';
import { runGallery } from './gallery.bench.js';
import { prepareLibraries } from './lib/libraries.js';
import { failedRow, printTable, writeResults, type Row } from './lib/report.js';
import { buildApp, removeDir, startServer } from './lib/server.js';
import { runLighthouse } from './lighthouse.bench.js';
import { runOrganizer } from './organizer.bench.js';
import { runIngest } from './photos.bench.js';

async function step(name: string, rows: Row[], fn: () => Promise<Row[]>, fallback: () => Row) {
  const t = performance.now();
  process.stdout.write(`${name}... `);
  try {
    const r = await fn();
    rows.push(...r);
  } catch (err) {
    rows.push({ ...fallback(), ...failedRow(fallback().id, fallback().measure, fallback().target, err) });
  }
  console.log(`${((performance.now() - t) / 1000).toFixed(0)} s`);
}

async function main() {
  const startedAt = Date.now();
  const loadAtStart = os.loadavg();
  const rows: Row[] = [];
  buildApp();

  const server = await startServer();
  try {
    await step(
      'P1 ingest',
      rows,
      () => runIngest(server),
      () => stub('P1', 'ingest 12 MP JPEG', 'ratio <= 1.3'),
    );
    await step(
      'P2 organizer',
      rows,
      () => runOrganizer(server),
      () => stub('P2', 'photos analysed/s', '>= 5/s; >= 80 %'),
    );
    await step(
      'P5 Lighthouse',
      rows,
      () => runLighthouse(server),
      () => stub('P5', 'Lighthouse mobile', '100; JS <= 150 KB'),
    );
  } finally {
    await server.stop();
    removeDir(server.dataDir);
  }

  process.stdout.write('preparing 100,000- and 100-photo libraries... ');
  const t = performance.now();
  try {
    const libs = await prepareLibraries();
    console.log(`${((performance.now() - t) / 1000).toFixed(0)} s (seeding ${libs.seedSeconds.toFixed(0)} s)`);
    try {
      await step(
        'P3 API on PGlite',
        rows,
        () => runApi(libs),
        () => stub('P3', 'GET /api/photos?limit=100', 'ratio >= 0.5; p99 <= 50 ms'),
      );
      await step(
        'P4 gallery',
        rows,
        () => runGallery(libs),
        () => stub('P4', 'gallery at 100,000 photos', 'ratio <= 1.2'),
      );
    } finally {
      await libs.server.stop();
      removeDir(libs.server.dataDir);
    }
  } catch (err) {
    rows.push(failedRow('P3', 'GET /api/photos?limit=100 (library setup)', 'ratio >= 0.5; p99 <= 50 ms', err));
    rows.push(failedRow('P4', 'gallery at 100,000 photos (library setup)', 'ratio <= 1.2', err));
  }

  await step(
    'P3 API on PostgreSQL',
    rows,
    () => runApiPostgres(),
    () => stub('P3', 'GET /api/photos?limit=100, PostgreSQL', 'ratio >= 0.5; p99 <= 50 ms'),
  );

  await step(
    'P6 editor',
    rows,
    () => runEditor(),
    () => stub('P6', 'filter preview / apply', '<= 100 ms; <= 700 ms'),
  );

  rows.sort((a, b) => a.id.localeCompare(b.id));
  printTable(rows);
  writeResults(rows, startedAt, loadAtStart);
  console.log(`wrote bench/results/latest.json and latest.md (${Math.round((Date.now() - startedAt) / 1000)} s)`);
}

function stub(id: string, measure: string, target: string): Row {
  return { id, measure, value: '', ceiling: '', ratio: '', target, met: null };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
