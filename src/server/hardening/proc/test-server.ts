/**
 * The real server (buildApp + listen, as main.ts) for the process-level hardening tests, with the
 * vision models replaced by a small double that really decodes the image. Settings come from the
 * environment like main.ts, plus:
 *   HARDENING_ANALYZE_MS    time each analysis takes (so a SIGKILL can land mid-job)
 *   HARDENING_ANALYSIS_LOG  file where every analysis run appends "<preview sha256> <pid>" (exactly-once checks)
 *   HARDENING_SWEEP_GRACE_MS, HARDENING_LOCK_MS  shorter orphan-sweep grace and job lock
 *   HARDENING_DEFAULT_LIMITS=true  keep the request limits of `npm start` (otherwise raised 100x)
 */
import { appendFileSync } from 'node:fs';
import sharp from 'sharp';
import { buildApp } from '../../app';
import { loadConfig } from '../../config';
import { DEFAULT_RATE_LIMITS } from '../../http/rate-limits';
import type { PhotoAnalyzer } from '../../features/analysis/index';
import { sha256Hex } from '../../storage/blob-store';

const num = (v: string | undefined) => (v ? Number(v) : undefined);
const analyzeMs = num(process.env.HARDENING_ANALYZE_MS) ?? 0;
const analysisLog = process.env.HARDENING_ANALYSIS_LOG;

const analyze: PhotoAnalyzer = async (image) => {
  const { channels } = await sharp(image).stats();
  if (analyzeMs) await new Promise((r) => setTimeout(r, analyzeMs));
  if (analysisLog) appendFileSync(analysisLog, `${sha256Hex(image)} ${process.pid}\n`);
  return {
    category: channels[0]!.mean > 128 ? 'food_drink' : 'nature',
    tags: ['test'],
    description: 'A test photo',
    faceCount: 0,
  };
};

// The load scenario is 200 simulated phones behind one address on 40 accounts (about 30 activities
// a minute each), far beyond one person: it measures latency, so the limits are raised here, unless
// a test checks the limits themselves (horizontal-scale.test.ts: one login limit for two processes).
const rateLimits =
  process.env.HARDENING_DEFAULT_LIMITS === 'true'
    ? DEFAULT_RATE_LIMITS
    : Object.fromEntries(
        Object.entries(DEFAULT_RATE_LIMITS).map(([route, rules]) => [
          route,
          rules.map((r) => ({ ...r, max: r.max * 100 })),
        ]),
      );
const config = {
  ...loadConfig(),
  webDir: undefined,
  sweepGraceMs: num(process.env.HARDENING_SWEEP_GRACE_MS),
  rateLimits,
};
const app = await buildApp(config, { analysis: { analyze, lockMs: num(process.env.HARDENING_LOCK_MS) } });
await app.listen({ port: config.port, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${(app.server.address() as { port: number }).port}\n`);
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => void app.close().then(() => process.exit(0)));
