import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { analysisStatus, analyzeAllResult } from '../../../contract/analysis.js';
import type { AppContext } from '../../context.js';
import { requireUser } from '../../http/session.js';
import { createAlbumsRepository } from '../albums/albums.repository.js';
import { createAnalysisRepository } from './analysis.repository.js';
import { createAnalysisWorker, type PhotoAnalyzer } from './analysis.worker.js';
import { createVisionAnalyzer } from './vision-analyzer.js';

export interface AnalysisRoutesOptions {
  /** Tests replace the vision models with a double; production uses the real engine. */
  analyze?: PhotoAnalyzer;
  /** How long a claimed job is held before another worker may take it (crash tests shorten it). */
  lockMs?: number;
}

export async function analysisRoutes(app: FastifyInstance, ctx: AppContext, opts: AnalysisRoutesOptions = {}) {
  const repo = createAnalysisRepository(ctx.db);
  const albums = createAlbumsRepository(ctx.db);
  let analyze = opts.analyze;
  if (!analyze) {
    const vision = createVisionAnalyzer(ctx.config.visionThreads);
    ctx.onClose.push(() => vision.close());
    analyze = vision.analyze;
  }
  const worker = createAnalysisWorker({
    repo,
    blobs: ctx.blobs,
    analyze,
    // Two jobs per thread: one is decoded and read from disk while the other is in inference.
    concurrency: opts.analyze ? undefined : ctx.config.visionThreads * 2,
    lockMs: opts.lockMs,
    onSettled: (userId) => albums.syncSmartAlbums(userId),
    log: (msg, err) => app.log.warn({ err }, msg),
  });
  if (ctx.config.startWorkers) {
    app.addHook('onReady', async () => worker.start());
    ctx.onClose.push(() => worker.stop());
  }
  // New uploads (and the demo library) are analysed without anyone pressing Analyze Photos.
  ctx.onPhotoIngested?.push(async (photo) => {
    await repo.enqueuePhoto(photo.userId, photo.id);
    worker.notify();
  });

  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post('/api/photos/analyze-all', { schema: { response: { 200: analyzeAllResult } } }, async (request) => {
    const user = requireUser(request);
    const queued = await repo.enqueueUnanalysed(user.id);
    worker.notify();
    return { queued, status: await repo.status(user.id) };
  });
  r.get('/api/photos/analysis-status', { schema: { response: { 200: analysisStatus } } }, async (request) => {
    const user = requireUser(request);
    return repo.status(user.id);
  });
  return { worker, repo };
}
