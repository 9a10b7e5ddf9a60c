import Fastify from 'fastify';
import { createFirstPages } from './first-pages';
import type { LibraryState } from './photos.repository';

/** Lets every promise that can settle settle (no timers, no clock). */
const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

describe('first pages: version reads', () => {
  it('a request never shares a version read that started before it; the requests queued behind it share one', async () => {
    const waiting: Array<(s: LibraryState) => void> = [];
    const pages = createFirstPages({ state: () => new Promise((resolve) => waiting.push(resolve)) });
    let built = 0;
    const app = Fastify();
    app.get('/page', (request, reply) =>
      pages.send(request, reply, 'user-1', 'page', async (state) => {
        built += 1;
        return JSON.stringify({ version: state.version });
      }),
    );
    await app.ready();
    const get = () => app.inject({ method: 'GET', url: '/page' });

    const first = get();
    await settle();
    expect(waiting).toHaveLength(1);
    // These arrive while the first read is in flight: it may predate a write they must see.
    const later = [get(), get(), get()];
    await settle();
    expect(waiting).toHaveLength(1);

    waiting[0]!({ version: 1, total: 0 });
    expect((await first).json()).toEqual({ version: 1 });
    await settle();
    expect(waiting).toHaveLength(2);
    waiting[1]!({ version: 2, total: 0 });
    for (const res of await Promise.all(later)) expect(res.json()).toEqual({ version: 2 });
    // One page made per version, whatever the number of requests.
    expect(built).toBe(2);

    const again = get();
    await settle();
    expect(waiting).toHaveLength(3);
    waiting[2]!({ version: 2, total: 0 });
    expect((await again).json()).toEqual({ version: 2 });
    expect(built).toBe(2);
    await app.close();
  });
});
