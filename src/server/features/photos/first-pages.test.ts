import Fastify from 'fastify';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { compress } from '../../http/compression';
import type { NotificationListener, Notifications } from '../../db/notifications';
import {
  createFirstPages,
  FIRST_PAGE_BUILD_WINDOW_MS,
  FIRST_PAGE_BUILDS_PER_WINDOW,
  KINDS_PER_USER,
} from './first-pages';
import { createLibraryVersions } from './library-versions';
import type { LibraryState } from './photos.repository';

vi.mock('../../http/compression', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../http/compression')>();
  return { ...real, compress: vi.fn(real.compress) };
});

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

describe('first pages: building and compressing', () => {
  it('a no-cache request is answered from the page checked against the current version, built once per version; each encoding is made once, when asked for', async () => {
    let version = 7;
    let reads = 0;
    const builds: LibraryState[] = [];
    const pages = createFirstPages({
      state: async () => {
        reads += 1;
        return { version, total: 1 };
      },
    });
    const json = JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `Photo "${i}" é` })) });
    const app = Fastify();
    app.get('/page', (request, reply) =>
      pages.sendPage(request, reply, 'user-1', 'page', async (known) => {
        builds.push(known);
        return { state: { version, total: 1 }, json };
      }),
    );
    await app.ready();
    const get = (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/page', headers });
    vi.mocked(compress).mockClear();

    const cold = await get({ 'cache-control': 'no-cache', 'accept-encoding': 'br' });
    expect(builds).toEqual([{ version: 7, total: 1 }]);
    expect(cold.headers['content-encoding']).toBe('br');
    expect(cold.headers.vary).toBe('Cookie, Accept-Encoding');
    expect(brotliDecompressSync(cold.rawPayload).toString()).toBe(json);
    const brTag = String(cold.headers.etag);

    // The version is checked (read, as nothing tells this cache of writes) and the page is still
    // that version's: the same bytes, no build, whether or not the request says no-cache.
    for (const headers of [{ 'cache-control': 'no-cache' }, { pragma: 'no-cache' }, {}] as Record<string, string>[]) {
      const again = await get({ ...headers, 'accept-encoding': 'br' });
      expect(again.rawPayload.equals(cold.rawPayload)).toBe(true);
      expect(again.headers.etag).toBe(brTag);
    }
    expect(reads).toBe(4);
    expect(builds).toHaveLength(1);
    expect(vi.mocked(compress).mock.calls.map((c) => c[1])).toEqual(['br']);

    const gz = await get({ 'accept-encoding': 'gzip' });
    expect(gunzipSync(gz.rawPayload).toString()).toBe(json);
    const plain = await get({ 'cache-control': 'no-cache' });
    expect(plain.body).toBe(json);
    expect(new Set([brTag, gz.headers.etag, plain.headers.etag]).size).toBe(3);
    expect(vi.mocked(compress).mock.calls.map((c) => c[1])).toEqual(['br', 'gzip']);
    expect(builds).toHaveLength(1);

    expect((await get({ 'cache-control': 'no-cache', 'if-none-match': brTag })).statusCode).toBe(304);
    expect(builds).toHaveLength(1);
    // A write: the next request, no-cache or not, gets the new version's page, built once.
    version = 8;
    const newer = await get({ 'cache-control': 'no-cache', 'if-none-match': brTag });
    expect(newer.statusCode).toBe(200);
    expect(builds).toEqual([
      { version: 7, total: 1 },
      { version: 8, total: 1 },
    ]);
    expect(newer.headers.etag).not.toBe(plain.headers.etag);
    for (let i = 0; i < 5; i++) await get({ 'cache-control': 'no-cache' });
    expect(builds).toHaveLength(2);
    await app.close();
  });

  it("one build of a user's page in flight and one queued: a request shares a build only if it began after the version it knows, and never waits on another user's", async () => {
    let version = 1;
    const held: Array<{ user: string; release: () => void }> = [];
    let built = 0;
    const pages = createFirstPages({ state: async () => ({ version, total: 0 }) });
    const app = Fastify();
    app.get('/page/:user', (request, reply) => {
      const user = (request.params as { user: string }).user;
      return pages.sendPage(request, reply, user, 'page', async () => {
        built += 1;
        // What the database holds when the build reads it.
        const at = version;
        await new Promise<void>((resolve) => held.push({ user, release: resolve }));
        return { state: { version: at, total: 0 }, json: JSON.stringify({ user, version: at }) };
      });
    });
    await app.ready();
    const get = (user = 'user-1') =>
      app.inject({ method: 'GET', url: `/page/${user}`, headers: { 'cache-control': 'no-cache' } });
    const body = async (res: ReturnType<typeof get>) => (await res).json() as { user: string; version: number };

    const first = get();
    await settle();
    expect(held).toHaveLength(1);
    // A write lands while that build reads: it may have read before the write, so the requests
    // that arrive now (all knowing version 2) wait for one build that starts after it.
    version = 2;
    const later = Array.from({ length: 20 }, () => get());
    const other = get('user-2');
    await settle();
    expect(held.map((h) => h.user)).toEqual(['user-1', 'user-2']);
    held[1]!.release();
    expect(await body(other)).toEqual({ user: 'user-2', version: 2 });

    held[0]!.release();
    expect(await body(first)).toEqual({ user: 'user-1', version: 1 });
    await settle();
    expect(held).toHaveLength(3);
    // Arriving while the queued build runs, knowing the version it reads: shares it.
    const joining = Array.from({ length: 5 }, () => get());
    await settle();
    expect(held).toHaveLength(3);
    held[2]!.release();
    for (const res of [...later, ...joining]) expect(await body(res)).toEqual({ user: 'user-1', version: 2 });
    expect(built).toBe(3);
    // The page is kept: more no-cache requests at that version build nothing.
    for (const res of await Promise.all([get(), get(), get()]))
      expect(res.json()).toEqual({ user: 'user-1', version: 2 });
    expect(built).toBe(3);
    await app.close();
  });
});

/** A notification source the test drives: what the database would tell, and whether it listens. */
function fakeNotifications() {
  const listeners = new Set<NotificationListener>();
  let up = false;
  const source: Notifications = {
    get listening() {
      return up;
    },
    subscribe(_channel, listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
  return {
    source,
    tell: (payload: string) => listeners.forEach((l) => l.message(payload)),
    listening: (value: boolean) => {
      up = value;
      listeners.forEach((l) => l.listening(value));
    },
  };
}

describe('first pages: versions told by notifications', () => {
  it('uses a told version without a read only while listening; a read begun before a loss is not kept', async () => {
    const db = fakeNotifications();
    const versions = createLibraryVersions(db.source);
    let version = 1;
    const waiting: Array<() => void> = [];
    let reads = 0;
    let hold = false;
    const pages = createFirstPages({
      versions,
      state: async () => {
        reads += 1;
        const at = version;
        if (hold) await new Promise<void>((resolve) => waiting.push(resolve));
        return { version: at, total: 3 };
      },
    });
    const app = Fastify();
    app.get('/page', (request, reply) =>
      pages.send(request, reply, 'user-1', 'page', async (state) => JSON.stringify({ version: state.version })),
    );
    await app.ready();
    const page = async () =>
      ((await app.inject({ method: 'GET', url: '/page' })).json() as { version: number }).version;

    // Not listening yet: every request reads, and nothing read is kept.
    expect(await page()).toBe(1);
    expect(await page()).toBe(1);
    expect(reads).toBe(2);

    db.listening(true);
    expect(await page()).toBe(1);
    expect(reads).toBe(3);
    // Learned from that read: no more reads until something changes.
    expect(await page()).toBe(1);
    expect(reads).toBe(3);
    version = 2;
    db.tell('user-1:2:4');
    expect(await page()).toBe(2);
    expect(reads).toBe(3);
    // An older version told late (or read late) never replaces a newer one.
    db.tell('user-1:1:3');
    expect(await page()).toBe(2);
    expect(reads).toBe(3);

    // The listening connection lost: each request reads the database.
    db.listening(false);
    version = 3;
    db.tell('user-1:3:4'); // heard by a pool connection meanwhile: not trusted, listening was lost
    expect(await page()).toBe(3);
    expect(await page()).toBe(3);
    expect(reads).toBe(5);

    // Back, but a read that began before the loss and ends after it is not kept.
    db.listening(true);
    hold = true;
    const slow = page();
    await settle();
    expect(waiting).toHaveLength(1);
    db.listening(false);
    db.listening(true);
    waiting[0]!();
    expect(await slow).toBe(3);
    hold = false;
    expect(await page()).toBe(3);
    expect(reads).toBe(7);
    expect(await page()).toBe(3);
    expect(reads).toBe(7);

    // A payload that is not the trigger's: nothing known is trusted any more.
    db.tell('garbage');
    expect(await page()).toBe(3);
    expect(reads).toBe(8);
    versions.close();
    await app.close();
  });
});

describe('first pages: answered at once', () => {
  it('a page in memory at the told version is answered from the request hook with the full answer’s headers and bytes; anything else takes the route', async () => {
    const db = fakeNotifications();
    const versions = createLibraryVersions(db.source);
    db.listening(true);
    let version = 1;
    let handled = 0;
    const pages = createFirstPages({ versions, state: async () => ({ version, total: 1 }) });
    const json = () =>
      JSON.stringify({ version, items: Array.from({ length: 100 }, (_, i) => ({ id: i, name: `Photo ${i}` })) });
    const lines: string[] = [];
    const app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } } });
    app.get(
      '/page',
      {
        onRequest: (request, reply, done) => {
          pages.answerAtOnce(request, reply, 'user-1', 'page');
          done();
        },
      },
      (request, reply) => {
        handled += 1;
        return pages.sendPage(request, reply, 'user-1', 'page', async () => ({
          state: { version, total: 1 },
          json: json(),
        }));
      },
    );
    await app.ready();
    const get = (headers: Record<string, string> = {}) => app.inject({ method: 'GET', url: '/page', headers });
    const same = (a: Awaited<ReturnType<typeof get>>, b: Awaited<ReturnType<typeof get>>) => {
      const { date: _a, ...ha } = a.headers;
      const { date: _b, ...hb } = b.headers;
      expect(ha).toEqual(hb);
      expect(a.statusCode).toBe(b.statusCode);
      expect(a.rawPayload.equals(b.rawPayload)).toBe(true);
    };
    db.tell('user-1:1:1');

    const full = await get();
    expect(handled).toBe(1);
    const once = await get({ 'cache-control': 'no-cache' });
    expect(handled).toBe(1);
    same(once, full);
    expect(JSON.parse(once.body).version).toBe(1);

    // A compressed copy is made by the route the first time, then answered at once.
    for (const encoding of ['br', 'gzip']) {
      const made = await get({ 'accept-encoding': encoding });
      expect(made.headers['content-encoding']).toBe(encoding);
      const before = handled;
      same(await get({ 'accept-encoding': encoding }), made);
      expect(handled).toBe(before);
    }
    expect(handled).toBe(3);

    const etag = String(full.headers.etag);
    const notModified = await get({ 'if-none-match': etag });
    expect(notModified.statusCode).toBe(304);
    expect(handled).toBe(3);
    // Not listening: nothing told is trusted, the route reads the version and answers the same.
    db.listening(false);
    same(await get({ 'if-none-match': etag }), notModified);
    same(await get(), full);
    expect(handled).toBe(5);
    db.listening(true);

    // A write told: the kept page is older, so the route builds the new one.
    version = 2;
    db.tell('user-1:2:1');
    const newer = await get({ 'if-none-match': etag });
    expect(newer.statusCode).toBe(200);
    expect(JSON.parse(newer.body).version).toBe(2);
    expect(handled).toBe(6);
    same(await get(), newer);
    expect(handled).toBe(6);
    // HEAD takes the route.
    expect((await app.inject({ method: 'HEAD', url: '/page' })).statusCode).toBe(200);
    expect(handled).toBe(7);
    // Answered at once or not, every request is logged as completed with its status.
    const completed = lines.map((l) => JSON.parse(l)).filter((e) => e.msg === 'request completed');
    expect(completed).toHaveLength(12);
    expect(completed.filter((e) => e.res.statusCode === 304)).toHaveLength(2);
    versions.close();
    await app.close();
  });
});

describe('first pages: made again after a write', () => {
  it('prepare makes the kept pages of the user at the told version, compressed as before, so the next request is answered at once', async () => {
    const db = fakeNotifications();
    const versions = createLibraryVersions(db.source);
    db.listening(true);
    let version = 1;
    let handled = 0;
    const built: string[] = [];
    const pages = createFirstPages({ versions, state: async () => ({ version, total: 1 }) });
    const build = (kind: string) => async () => {
      built.push(`${kind}@${version}`);
      return { state: { version, total: 1 }, json: JSON.stringify({ kind, version, pad: 'x'.repeat(2000) }) };
    };
    const app = Fastify();
    for (const kind of ['page', 'other']) {
      app.get(
        `/${kind}`,
        {
          onRequest: (request, reply, done) => {
            pages.answerAtOnce(request, reply, 'user-1', kind);
            done();
          },
        },
        (request, reply) => {
          handled += 1;
          return pages.sendPage(request, reply, 'user-1', kind, build(kind));
        },
      );
    }
    await app.ready();
    const get = (kind: string) => app.inject({ method: 'GET', url: `/${kind}`, headers: { 'accept-encoding': 'br' } });
    db.tell('user-1:1:1');
    expect((await get('page')).headers['content-encoding']).toBe('br');
    expect((await get('other')).statusCode).toBe(200);
    expect(handled).toBe(2);
    expect(built).toEqual(['page@1', 'other@1']);

    // Only 'page' has a maker here: 'other' is made when asked for, as before.
    pages.makes((_userId, kind) => (kind === 'page' ? build(kind) : null));
    // Nothing newer told: nothing to make.
    pages.prepare('user-1');
    await settle();
    expect(built).toHaveLength(2);

    // A write (an upload) told: the kept pages a maker can build are made at once; another
    // user's, or a kind no maker builds, are not.
    version = 2;
    db.tell('user-1:2:2');
    pages.prepare('user-1');
    pages.prepare('user-2');
    await settle();
    // The compressed copy is made in zlib's threads: waited for, not raced.
    await Promise.all(vi.mocked(compress).mock.results.map((r) => r.value as Promise<Buffer>));
    expect(built).toEqual(['page@1', 'other@1', 'page@2']);
    const answer = await get('page');
    expect(handled).toBe(2); // answered at once, compressed already
    expect(answer.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(answer.rawPayload).toString()).version).toBe(2);
    // The page it could not make is made when asked for, as before.
    const other = await get('other');
    expect(handled).toBe(3);
    expect(JSON.parse(brotliDecompressSync(other.rawPayload).toString()).version).toBe(2);
    versions.close();
    await app.close();
  });

  it("keeps a few kinds per user and counts the builds a user's requests start: 400 limits no longer make 400 builds per write", async () => {
    const db = fakeNotifications();
    const versions = createLibraryVersions(db.source);
    db.listening(true);
    let version = 1;
    let now = 1_000_000;
    const built: string[] = [];
    const pages = createFirstPages({ versions, state: async () => ({ version, total: 1 }), clock: () => now });
    const build = (user: string, kind: string) => async () => {
      built.push(`${user}:${kind}@${version}`);
      return { state: { version, total: 1 }, json: JSON.stringify({ kind, version }) };
    };
    pages.makes((user, kind) => build(user, kind));
    const app = Fastify();
    app.get('/:user/:kind', (request, reply) => {
      const { user, kind } = request.params as { user: string; kind: string };
      return pages.sendPage(request, reply, user, kind, build(user, kind));
    });
    await app.ready();
    const get = (user: string, kind: string) => app.inject({ method: 'GET', url: `/${user}/${kind}` });
    db.tell('user-1:1:1');
    db.tell('user-2:1:1');

    // An API client naming 40 limits: every page is answered, but only the last few stay kept.
    for (let i = 1; i <= 40; i++) expect((await get('user-1', `page:${i}`)).statusCode).toBe(200);
    expect((await get('user-2', 'list')).statusCode).toBe(200);
    expect(built).toHaveLength(41);
    // A write: prepare makes the kept kinds only, not the 40.
    built.length = 0;
    version = 2;
    db.tell('user-1:2:2');
    pages.prepare('user-1');
    await settle();
    expect(built).toHaveLength(KINDS_PER_USER);
    expect(built.every((b) => b.startsWith('user-1:page:') && b.endsWith('@2'))).toBe(true);
    // The last kinds used are the ones kept: answered without a build.
    built.length = 0;
    expect((await get('user-1', 'page:40')).json()).toEqual({ kind: 'page:40', version: 2 });
    expect(built).toEqual([]);
    // Another user's page was not pushed out by them.
    expect((await get('user-2', 'list')).statusCode).toBe(200);
    expect(built).toEqual([]);

    // Builds started by requests are counted (41 so far by user-1's, 40 at version 1 and none since).
    let refused: Awaited<ReturnType<typeof get>> | undefined;
    let lastKept = '';
    for (let i = 0; i < FIRST_PAGE_BUILDS_PER_WINDOW && !refused; i++) {
      const kind = `page:${(i % 150) + 41}`;
      const res = await get('user-1', kind);
      if (res.statusCode === 429) refused = res;
      else expect(res.statusCode).toBe(200);
      if (!refused) lastKept = kind;
    }
    expect(refused!.json().message).toMatch(/^Too many attempts\. Please wait 5 minute\(s\) and try again\.$/);
    expect(Number(refused!.headers['retry-after'])).toBe(FIRST_PAGE_BUILD_WINDOW_MS / 1000);
    // A page kept still answers; another user builds as before; the next window builds again.
    expect((await get('user-1', lastKept)).statusCode).toBe(200);
    expect((await get('user-2', 'page:7')).statusCode).toBe(200);
    now += FIRST_PAGE_BUILD_WINDOW_MS;
    expect((await get('user-1', 'page:199')).statusCode).toBe(200);
    versions.close();
    await app.close();
  });
});
