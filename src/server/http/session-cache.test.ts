import { SessionCache } from './session-cache';

describe('SessionCache', () => {
  let now = 0;
  const make = (maxEntries = 3, ttlMs = 5_000) =>
    new SessionCache<{ name: string }>({ ttlMs, maxEntries, now: () => now });
  const entry = (userId: string, sessionExpiresAt = 1_000_000) => ({
    user: { name: userId },
    userId,
    sessionExpiresAt,
  });

  beforeEach(() => {
    now = 1_000;
  });

  it('answers a stored session until the TTL, then forgets it', () => {
    const c = make();
    c.set('s1', entry('u1'), c.begin());
    expect(c.get('s1')?.user).toEqual({ name: 'u1' });
    now += 4_999;
    expect(c.get('s1')?.userId).toBe('u1');
    now += 1;
    expect(c.get('s1')).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('never answers past the session expiry, even inside the TTL', () => {
    const c = make();
    c.set('s1', entry('u1', now + 1_000), c.begin());
    now += 999;
    expect(c.get('s1')).toBeDefined();
    now += 1;
    expect(c.get('s1')).toBeUndefined();
  });

  it('is bounded: the oldest entry goes first', () => {
    const c = make(3);
    for (const id of ['a', 'b', 'c', 'd']) c.set(id, entry(id), c.begin());
    expect(c.size).toBe(3);
    expect(c.get('a')).toBeUndefined();
    expect(['b', 'c', 'd'].map((id) => c.get(id)?.userId)).toEqual(['b', 'c', 'd']);
  });

  it('evicts one session, or every session of a user', () => {
    const c = make(10);
    c.set('s1', entry('u1'), c.begin());
    c.set('s2', entry('u1'), c.begin());
    c.set('s3', entry('u2'), c.begin());
    c.evict('s1');
    expect(c.get('s1')).toBeUndefined();
    expect(c.get('s2')).toBeDefined();
    c.evictUser('u1');
    expect(c.get('s2')).toBeUndefined();
    expect(c.get('s3')?.userId).toBe('u2');
  });

  it('does not store a lookup that raced an eviction (read before the logout deleted the row)', () => {
    const c = make();
    const started = c.begin();
    c.evict('s1'); // logout finished while the lookup's query was in flight
    c.set('s1', entry('u1'), started);
    expect(c.get('s1')).toBeUndefined();
    const again = c.begin();
    c.set('s1', entry('u1'), again);
    expect(c.get('s1')).toBeDefined();
  });

  it('a TTL of 0 disables caching', () => {
    const c = make(3, 0);
    c.set('s1', entry('u1'), c.begin());
    expect(c.get('s1')).toBeUndefined();
  });

  it('paused, it answers nothing and stores nothing, until resumed', () => {
    const c = make();
    c.set('s1', entry('u1'), c.begin());
    const started = c.begin();
    c.pause();
    expect(c.get('s1')).toBeUndefined();
    c.set('s2', entry('u2'), c.begin());
    expect(c.get('s2')).toBeUndefined();
    c.resume();
    expect(c.get('s1')).toBeUndefined();
    // A lookup that began before the pause may have missed an eviction meanwhile: not stored.
    c.set('s3', entry('u3'), started);
    expect(c.get('s3')).toBeUndefined();
    c.set('s4', entry('u4'), c.begin());
    expect(c.get('s4')?.userId).toBe('u4');
  });

  it('a lookup that began while paused is not stored after the resume (a logout then went unheard)', () => {
    const c = make();
    c.pause();
    const during = c.begin();
    c.resume();
    c.set('s1', entry('u1'), during);
    expect(c.get('s1')).toBeUndefined();
  });
});
