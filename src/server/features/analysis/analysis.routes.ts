import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { analysisStatus, analyzeAllResult } from '@contract/analysis';
import type { AppContext } from '../../context';
import { answeredLater } from '../../http/answered-later';
import { userOf } from '../../http/session';
import { createAnalysisService, type AnalysisServiceOptions } from './analysis.service';

export type AnalysisRoutesOptions = Omit<AnalysisServiceOptions, 'log'>;

export async function analysisRoutes(app: FastifyInstance, ctx: AppContext, opts: AnalysisRoutesOptions = {}) {
  const service = createAnalysisService(ctx, { ...opts, log: (msg, err) => app.log.warn({ err }, msg) });
  if (ctx.config.startWorkers) app.addHook('onReady', async () => service.start());
  // At the close's start, before the requests in flight are waited for (http/closing.ts).
  app.addHook('preClose', (done) => {
    service.beginStop();
    done();
  });

  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post('/api/photos/analyze-all', { schema: { response: { 200: analyzeAllResult } } }, async (request, reply) =>
    service.analyzeAll(userOf(request).id, answeredLater(reply, ctx.activity)),
  );
  r.get('/api/photos/analysis-status', { schema: { response: { 200: analysisStatus } } }, async (request) =>
    service.status(userOf(request).id),
  );
  return { worker: service.worker, repo: service.repo };
}
