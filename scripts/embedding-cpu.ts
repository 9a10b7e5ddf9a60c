/**
 * CPU per photo of the InceptionV3 embedding (mixed8+mixed9, ONNX Runtime, batches of 4) at several
 * input sides, measured in one process with the sides taking turns, so a busy machine moves them
 * alike; only the ratios between sides mean much. Eight tuning-part nature photos.
 *   npx tsx scripts/embedding-cpu.ts [sides=224,160,288]
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../src/server/lib/paths.js';
import {
  decodeForModels,
  ensureTfWasm,
  loadEmbedder,
  splitPart,
  type RgbImage,
} from '../src/server/features/analysis/index';

const sides = (process.argv[2] ?? '224,160,288').split(',').map(Number);
await ensureTfWasm();
const dir = path.join(projectRoot, 'assets', 'reference-photos', 'nature_landscape');
const files = (await readdir(dir)).filter((f) => splitPart(f) === 'tune' && /\.jpe?g$/i.test(f)).slice(0, 8);
const runs = new Map<number, { embedder: Awaited<ReturnType<typeof loadEmbedder>>; inputs: RgbImage[] }>();
for (const s of sides) {
  const embedder = await loadEmbedder(undefined, ['mixed8', 'mixed9'], s);
  const inputs = await Promise.all(
    files.map(async (f) => (await decodeForModels(await readFile(path.join(dir, f)), s)).embed),
  );
  await embedder.embedBatch(inputs.slice(0, 4)); // warm-up
  runs.set(s, { embedder, inputs });
}
const cpu = new Map<number, number[]>(sides.map((s) => [s, []]));
for (let round = 0; round < 5; round++) {
  for (const s of round % 2 ? [...sides].reverse() : sides) {
    const { embedder, inputs } = runs.get(s)!;
    const c0 = process.cpuUsage();
    for (let i = 0; i < inputs.length; i += 4) await embedder.embedBatch(inputs.slice(i, i + 4));
    const c = process.cpuUsage(c0);
    cpu.get(s)!.push((c.user + c.system) / 1000 / inputs.length);
  }
}
for (const s of sides) {
  const v = [...cpu.get(s)!].sort((a, b) => a - b);
  console.log(
    `${s} px: median ${v[2]!.toFixed(1)} ms CPU per photo (rounds ${cpu
      .get(s)!
      .map((x) => x.toFixed(0))
      .join(', ')}; ${runs.get(s)!.embedder.runtime})`,
  );
}
