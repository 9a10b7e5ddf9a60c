import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_IN_FLIGHT_LIMITS, inFlightMessage, registerRateLimits } from './rate-limits';

describe('uploads in flight per user', () => {
  const apps: Array<ReturnType<typeof Fastify>> = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });

  it('a place is held until the handler settles, not given back when the client goes away', async () => {
    const max = DEFAULT_IN_FLIGHT_LIMITS['POST /api/photos']!;
    const app = Fastify();
    apps.push(app);
    await registerRateLimits(app, { 'GET /unused': [{ key: 'ip', max: 1000, windowMs: 60_000 }] });
    const gates: Array<() => void> = [];
    let started = 0;
    app.post('/api/photos', async (_request, reply) => {
      started += 1;
      // The client has sent its file and hung up; the server is still decoding it.
      reply.raw.emit('close');
      await new Promise<void>((resolve) => gates.push(resolve));
      return { ok: true };
    });
    await app.ready();
    const post = () => app.inject({ method: 'POST', url: '/api/photos', payload: {} });
    // The client is gone, so these never get an answer (light-my-request rejects them).
    const gone = () =>
      post().then(
        () => 'answered',
        () => 'client gone',
      );
    const held = Array.from({ length: max }, gone);
    while (started < max) await new Promise((r) => setImmediate(r));

    const refused = await post();
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toBe(inFlightMessage(max));
    expect(started).toBe(max);

    // Once one settles, its place is free again.
    gates.shift()!();
    await held[0];
    const next = gone();
    while (started < max + 1) await new Promise((r) => setImmediate(r));
    gates.splice(0).forEach((open) => open());
    expect(await Promise.all([...held, next])).toEqual(Array(max + 1).fill('client gone'));
  });
});
