/**
 * One row per measure: value, the ceiling measured in the same run, their ratio, the target and
 * whether it is met. Printing, and writing bench/results/latest.{json,md}.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './server.js';

export interface Row {
  id: string;
  measure: string;
  /** The measured value, as shown (units included). */
  value: string;
  /** The ceiling measured in the same run, or '(absolute)'. */
  ceiling: string;
  /** value / ceiling where the target is a ratio; '' otherwise. */
  ratio: string;
  target: string;
  /** null: not measured. */
  met: boolean | null;
  note?: string;
}

export const ms = (x: number) => `${x.toFixed(0)} ms`;
export const fmtRatio = (x: number) => x.toFixed(2);
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};

export function failedRow(id: string, measure: string, target: string, err: unknown): Row {
  const text = err instanceof Error ? err.message : String(err);
  // A child process's failure carries its whole stderr: keep the line that says what went wrong.
  const lines = text.split('\n').map((l) => l.trim());
  const message = lines.find((l) => /^\w*Error\b|Error:/.test(l)) ?? lines[0] ?? text;
  return { id, measure, value: 'error', ceiling: '', ratio: '', target, met: null, note: message.slice(0, 300) };
}

const metText = (m: boolean | null) => (m === null ? 'n/a' : m ? 'yes' : 'NO');
const HEAD = ['id', 'measure', 'value', 'ceiling', 'ratio', 'target', 'met?'];
const cells = (r: Row) => [r.id, r.measure, r.value, r.ceiling, r.ratio, r.target, metText(r.met)];

export function formatTable(rows: Row[]): string {
  const all = [HEAD, ...rows.map(cells)];
  const widths = HEAD.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  const out = [line(HEAD), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((r) => line(cells(r)))];
  const notes = rows.filter((r) => r.note).map((r) => `  ${r.id} ${r.measure}: ${r.note}`);
  if (notes.length) out.push('', 'notes:', ...notes);
  return out.join('\n');
}

export function printTable(rows: Row[]) {
  console.log(`\n${formatTable(rows)}\n`);
}

function markdown(rows: Row[], meta: Record<string, unknown>): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const out = [
    '# Benchmark results (latest)',
    '',
    `Run ${String(meta.finishedAt)} on ${String(meta.cpus)} x ${String(meta.cpuModel)}, Node ${String(meta.node)}, ` +
      `load average at start ${String(meta.loadAverageAtStart)}; ${String(meta.durationSeconds)} s in all.`,
    '',
    `| ${HEAD.join(' | ')} |`,
    `|${HEAD.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${cells(r).map(esc).join(' | ')} |`),
  ];
  const notes = rows.filter((r) => r.note);
  if (notes.length) out.push('', '## Notes', '', ...notes.map((r) => `- **${r.id} ${r.measure}**: ${r.note}`));
  out.push('', 'See bench/README.md for what each row measures and what limits the ones not met.', '');
  return out.join('\n');
}

export function writeResults(rows: Row[], startedAt: number, loadAtStart: number[]) {
  const dir = path.join(ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const meta = {
    finishedAt: new Date().toISOString(),
    durationSeconds: Math.round((Date.now() - startedAt) / 1000),
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    loadAverageAtStart: loadAtStart.map((x) => x.toFixed(2)).join(' '),
  };
  writeFileSync(path.join(dir, 'latest.json'), `${JSON.stringify({ ...meta, rows }, null, 2)}\n`);
  writeFileSync(path.join(dir, 'latest.md'), markdown(rows, meta));
}

/** True when this module is the script node was started with (a benchmark run alone). */
export function isMain(importMetaUrl: string): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  return path.resolve(entry) === path.resolve(new URL(importMetaUrl).pathname);
}
