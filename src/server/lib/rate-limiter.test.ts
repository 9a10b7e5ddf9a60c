import { RateLimiter } from './rate-limiter.js';

describe(RateLimiter.name, () => {
  it('allows up to the limit in a window, then refuses until the window passes', () => {
    let now = 1_000;
    const sut = new RateLimiter(2, 60_000, () => now);
    expect(sut.hit('a').allowed).toBe(true);
    expect(sut.hit('a').allowed).toBe(true);
    const third = sut.hit('a');
    expect(third.allowed).toBe(false);
    expect(third.retryAfterSeconds).toBe(60);
    expect(sut.hit('b').allowed).toBe(true);
    now += 60_000;
    expect(sut.hit('a').allowed).toBe(true);
  });
});
