import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../../../lib/paths';
import type { CategoryResult, PhotoCategory } from '@domain/photo-categories';
import { createVisionEngine } from './engine';
import { demoPhotos, figures, labelledPhotos, report, type LabelledPhoto } from './labelled-photos';

/**
 * The whole engine (embedding, detectors, learned category model, abstain threshold) on the TEST
 * part of the labelled photos: the part scripts/build-reference-embeddings.ts never reads (the
 * split is fixed by file name, src/server/features/analysis/classifier/split.ts). Then the demo library.
 */
describe('vision engine on photos it was not tuned on (real models)', () => {
  const engine = createVisionEngine();

  async function run(photos: LabelledPhoto[]) {
    const rows: {
      expected: PhotoCategory;
      got: CategoryResult;
      file: string;
      tags: string[];
      description: string;
      detectorsRun: boolean;
      fresh: boolean;
    }[] = [];
    for (const p of photos) {
      const r = await engine.analyze(await readFile(p.file));
      rows.push({
        expected: p.expected,
        got: r.category,
        file: path.relative(projectRoot, p.file),
        tags: r.tags,
        description: r.description,
        detectorsRun: r.detectorsRun,
        fresh: p.fresh === true,
      });
    }
    return rows;
  }

  // The goal is >= 85 % right with at most 10 % uncategorized. The floor below guards against
  // regressions without pretending the goal is met. Measured with the model trained on the round-5
  // tuning part: 81.8 % right of the 225 test photos of rounds 1-8 (4.9 % uncategorized, precision
  // 86.0 %); the 136 fresh photos (rounds 2-8) 79.4 % (bench/README.md, acc11; 82.2 % of rounds 1-7's
  // 213 at acc9). Raise it when a model does better; never move photos between the parts to get there.
  // ~140 photos through the real models on one thread: about two minutes on a quiet machine, but
  // over ten when the two cores are shared, hence the long limit.
  it(
    'test part: >= 80 % right with at most 10 % uncategorized; demo library 10/10',
    { timeout: 1_500_000 },
    async () => {
      await engine.load();
      const test = await labelledPhotos('test');
      const demo = await demoPhotos();
      const t0 = performance.now();
      const testRows = await run(test);
      const demoRows = await run(demo);
      const ms = (performance.now() - t0) / (test.length + demo.length);
      console.log(
        [
          `${test.length + demo.length} photos, ${ms.toFixed(0)} ms/photo on one thread`,
          ...[...testRows, ...demoRows].map(
            (r) =>
              `${r.got === r.expected ? 'ok  ' : r.got === 'uncategorized' ? 'skip' : 'MISS'} ${r.file} -> ${r.got} | ${r.description} | ${r.tags.join(', ')}`,
          ),
          '',
          report(
            'FRESH test part (rounds 2 and later)',
            testRows.filter((r) => r.fresh),
          ),
          '',
          report('TEST part', testRows),
          '',
          report('demo library', demoRows),
        ].join('\n'),
      );

      const f = figures(testRows);
      expect(test.length).toBeGreaterThanOrEqual(60);
      expect(f.accuracy).toBeGreaterThanOrEqual(0.8);
      expect(f.precision).toBeGreaterThanOrEqual(0.83);
      expect(f.abstained).toBeLessThanOrEqual(0.1);
      expect(demoRows.length).toBe(10);
      expect(demoRows.filter((r) => r.got !== r.expected).map((r) => r.file)).toEqual([]);
      // The detectors are skipped only on a confident probe that does not lean towards people, so
      // every photo called people was looked at by the person and face detectors, and some were not.
      const all = [...testRows, ...demoRows];
      expect(all.filter((r) => r.got === 'people' && !r.detectorsRun).map((r) => r.file)).toEqual([]);
      expect(all.some((r) => !r.detectorsRun)).toBe(true);
      expect(all.some((r) => r.detectorsRun)).toBe(true);
      // Tags never contradict the category: no animal tag on food, and so on.
      const animalLabels = ['bird', 'cat', 'dog', 'horse', 'sheep', 'cow', 'elephant', 'bear', 'zebra', 'giraffe'];
      for (const r of [...testRows, ...demoRows].filter(
        (x) => x.got === 'food_drink' || x.got === 'vehicles_transport',
      )) {
        expect(r.tags.filter((t) => animalLabels.includes(t))).toEqual([]);
      }
    },
  );
});
