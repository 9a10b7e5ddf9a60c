import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context';

export async function healthRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      await ctx.database.ping();
      return { status: 'ready', database: ctx.database.kind };
    } catch {
      return reply.status(503).send({ status: 'unavailable', message: 'Database unreachable' });
    }
  });
}
