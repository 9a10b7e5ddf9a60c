import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { TIME_ZONE_COOKIE } from '@contract/auth-values';
import { recordRewardBody, recordRewardResponse, rewardsSummary, stats, statsQuery } from '@contract/rewards';
import type { AppContext } from '../../context';
import { userOf } from '../../http/session';
import { createRewardsService } from './rewards.service';

/** `GET /api/rewards`, `POST /api/rewards/record`, `GET /api/stats`; plugs the upload reward into the photos hook. */
export async function rewardsRoutes(app: FastifyInstance, ctx: AppContext) {
  const service = createRewardsService({ ledger: ctx.ledger, now: ctx.now });
  // Upload reward: 5 per photo content never rewarded before (a daily cap, rewards.service.ts),
  // after the photos feature has stored them.
  ctx.onPhotosUploaded?.push((userId, uploads) =>
    service.recordUpload(
      userId,
      uploads.map((u) => u.contentHash),
    ),
  );
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/api/rewards', { schema: { response: { 200: rewardsSummary } } }, async (request) =>
    service.summary(userOf(request).id),
  );

  r.post(
    '/api/rewards/record',
    { schema: { body: recordRewardBody, response: { 200: recordRewardResponse } } },
    // A posted utcOffsetMinutes is accepted but never decides the day: the stored zone does.
    async (request) => service.record(userOf(request).id, request.body.type),
  );

  r.get('/api/stats', { schema: { querystring: statsQuery, response: { 200: stats } } }, async (request) =>
    service.stats(userOf(request).id, request.query.utcOffsetMinutes, request.cookies[TIME_ZONE_COOKIE]),
  );
}
