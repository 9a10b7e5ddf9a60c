import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../../storage/blob-store';
import type { AnalysisOutcome, AnalysisRepository, ClaimedJob } from './analysis.repository';
import { createAnalysisWorker } from './analysis.worker';

const job = (id: number, attempts: number): ClaimedJob =>
  ({ id, userId: 'u', photoId: `p${id}`, attempts }) as unknown as ClaimedJob;
const outcome = { category: 'uncategorized' } as unknown as AnalysisOutcome;
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('analysis worker drain', () => {
  it('claims again when a job was queued for a retry while a claim that saw it running was under way', async () => {
    let failed!: () => void;
    const failWritten = new Promise<void>((resolve) => (failed = resolve));
    const completed: number[] = [];
    const claims: Array<() => Promise<ClaimedJob[]>> = [
      async () => [job(1, 1), job(2, 1)],
      // Job 2 has finished; job 1 is failing. This claim's snapshot has job 1 still running, and
      // the claim ends only after job 1's failure was written and it left the worker.
      async () => {
        failed();
        await tick();
        await tick();
        return [];
      },
      async () => [job(1, 2)],
    ];
    const repo = {
      claim: async () => (claims.shift() ?? (async () => []))(),
      closeIfAnalyzed: async () => false,
      previewKey: async () => 'key',
      complete: async (j: ClaimedJob) => {
        completed.push(j.id);
      },
      fail: async () => {
        await failWritten;
        return 'retry' as const;
      },
    } as unknown as AnalysisRepository;
    let firstTry = true;
    const worker = createAnalysisWorker({
      repo,
      blobs: { read: async () => Buffer.from('x') } as unknown as BlobStore,
      analyze: async () => {
        if (firstTry) {
          firstTry = false;
          throw new Error('flaky decode');
        }
        return outcome;
      },
      concurrency: 2,
    });
    await worker.drain();
    // The retry ran before drain ended (it returned with job 1 queued and claimable before).
    expect(completed.sort()).toEqual([1, 2]);
    expect(claims).toHaveLength(0);
  });
});

describe('analysis worker stop', () => {
  it('gives back the jobs still in flight after its wait, and writes nothing they finish or fail later', async () => {
    const writes: string[] = [];
    const released: number[] = [];
    let claimed = false;
    const repo = {
      claim: async () => {
        if (claimed) return [];
        claimed = true;
        return [job(1, 1), job(2, 1)];
      },
      closeIfAnalyzed: async () => false,
      previewKey: async () => 'key',
      complete: async (j: ClaimedJob) => void writes.push(`complete ${j.id}`),
      fail: async (j: ClaimedJob) => {
        writes.push(`fail ${j.id}`);
        return 'retry' as const;
      },
      release: async (jobs: ClaimedJob[]) => void released.push(...jobs.map((j) => j.id)),
    } as unknown as AnalysisRepository;
    const pending: Array<{ resolve: (o: AnalysisOutcome) => void; reject: (e: Error) => void }> = [];
    const worker = createAnalysisWorker({
      repo,
      blobs: { read: async () => Buffer.from('x') } as unknown as BlobStore,
      analyze: () => new Promise((resolve, reject) => pending.push({ resolve, reject })),
      concurrency: 2,
    });
    const draining = worker.drain();
    while (pending.length < 2) await tick();
    await worker.stop({ waitMs: 0 });
    expect(released.sort()).toEqual([1, 2]);
    // The threads closing under one, the other finishing after all: neither is written.
    pending[0]!.reject(new Error('vision pool is closed'));
    pending[1]!.resolve(outcome);
    await draining;
    expect(writes).toEqual([]);
  });
});
