/**
 * P6 photo editor: runs bench/filters.bench.ts (the filters benchmark: a 12 MP original,
 * preview render p50 of 20 with the render cache missing, full-size apply, sharp's plain resize and
 * re-encode of the same file as the yardstick, all in one process) and reads its output into rows.
 * Targets: preview p50 <= 100 ms; apply <= 700 ms.
 *
 *   npx tsx bench/editor.bench.ts     (or npx tsx bench/filters.bench.ts for its own output)
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { failedRow, fmtRatio, isMain, printTable, type Row } from './lib/report.js';
import { ROOT } from './lib/server.js';

const TARGET_PREVIEW = 100;
const TARGET_APPLY = 700;

const num = (re: RegExp, text: string) => {
  const m = re.exec(text);
  if (!m) throw new Error(`could not read ${re} in bench/filters.bench.ts output: ${text.slice(-400)}`);
  return Number(m[1]);
};

export async function runEditor(): Promise<Row[]> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bench/filters.bench.ts'], {
      cwd: ROOT,
      timeout: 400_000,
      maxBuffer: 1 << 22,
    });
    const resize = num(/sharp plain resize to 1440 px[^:]*:\s+(\d+) ms/, stdout);
    const reencode = num(/sharp plain full-size JPEG re-encode[^:]*:\s+(\d+) ms/, stdout);
    const preview = num(/preview, render \(p50[^:]*:\s+(\d+) ms/, stdout);
    const cached = /preview, cached \(p50[^:]*:\s+(\d+) ms/.exec(stdout)?.[1];
    const apply = num(/apply, full 12 MP[^:]*\):\s+(\d+) ms/, stdout);
    return [
      {
        id: 'P6',
        measure: 'filter preview from a 12 MP original, render p50 of 20',
        value: `${preview} ms`,
        ceiling: `${resize} ms sharp resize to 1440`,
        ratio: fmtRatio(preview / resize),
        target: `<= ${TARGET_PREVIEW} ms`,
        met: preview <= TARGET_PREVIEW,
        note: cached ? `cached answer p50 ${cached} ms` : undefined,
      },
      {
        id: 'P6',
        measure: 'filter apply, full 12 MP (median)',
        value: `${apply} ms`,
        ceiling: `${reencode} ms sharp full-size re-encode`,
        ratio: fmtRatio(apply / reencode),
        target: `<= ${TARGET_APPLY} ms`,
        met: apply <= TARGET_APPLY,
      },
    ];
  } catch (err) {
    const message = err instanceof Error ? (err.message.split('\n').find((l) => /Error/.test(l)) ?? err.message) : err;
    return [
      failedRow(
        'P6',
        'filter preview p50 / apply (bench/filters.bench.ts)',
        `<= ${TARGET_PREVIEW} ms; <= ${TARGET_APPLY} ms`,
        message,
      ),
    ];
  }
}

if (isMain(import.meta.url)) {
  runEditor().then(printTable, (err) => {
    console.error(err);
    process.exit(1);
  });
}
