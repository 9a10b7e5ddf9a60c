import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../http/rate-limits';
import { createTestApp, signUp, type TestApp } from '../test/harness';
import { appWithStripeDouble, subscribedAccount } from './support';

/**
 * Round four of the attacker's audit. Each test failed before its fix.
 */
const ruleOf = (route: string) => {
  const rule = DEFAULT_RATE_LIMITS[route]?.[0];
  if (!rule) throw new Error(`${route} has no limit`);
  return rule;
};

describe('trust: HEAD requests and the GET limits', () => {
  let paid: Awaited<ReturnType<typeof appWithStripeDouble>>;
  let t: TestApp;
  beforeAll(async () => {
    paid = await appWithStripeDouble();
    t = paid.t;
  });
  afterAll(() => paid?.close());

  it("a HEAD loop over the invoice list is refused past the GET's limit, before it reaches Stripe", async () => {
    // Fastify answers HEAD by running the GET's handler (every Stripe request made, the body then
    // dropped), on a twin route the limits table, keyed 'GET /url', did not name: HEAD was unlimited.
    const rule = ruleOf('GET /api/billing/invoices');
    const account = await subscribedAccount(t, paid.stripe);
    const listed = account.invoiceLists;
    const before = listed();
    const head = () =>
      t.app.inject({ method: 'HEAD', url: '/api/billing/invoices', headers: { cookie: account.cookie } });
    for (let i = 0; i < rule.max; i++) expect((await head()).statusCode).toBe(200);
    const refused = await head();
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(listed() - before).toBe(rule.max);
    // One budget for both methods: the GET is refused too once HEAD has spent it.
    const get = await t.app.inject({ url: '/api/billing/invoices', headers: { cookie: account.cookie } });
    expect(get.statusCode).toBe(429);
    expect(get.json().message).toMatch(/Too many attempts/);
    expect(listed() - before).toBe(rule.max);
  });

  it('GET and HEAD of a library scan share one budget, however they alternate', async () => {
    const rule = ruleOf('GET /api/photos/duplicates');
    const { cookie } = await signUp(t.app);
    const answers: LightMyRequestResponse[] = [];
    for (let i = 0; i <= rule.max; i++) {
      answers.push(
        await t.app.inject({ method: i % 2 ? 'HEAD' : 'GET', url: '/api/photos/duplicates', headers: { cookie } }),
      );
    }
    expect(answers.slice(0, rule.max).every((r) => r.statusCode === 200)).toBe(true);
    expect(answers[rule.max]!.statusCode).toBe(429);
  });
});

describe('trust: the favourites pages', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it('a loop over the favourites list is refused with 429 past the pages limit; other users are not', async () => {
    // Unlike the gallery's first pages, no favourites page is kept in memory: each request (a
    // count and a page read, its versions and JSON) was built anew, with no limit at all.
    const rule = ruleOf('GET /api/photos/favorites');
    expect(rule.key).toBe('user');
    expect(rule.max).toBeLessThanOrEqual(ruleOf('GET /api/photos').max);
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const photos = (await t.app.inject({ url: '/api/photos', headers: { cookie: a.cookie } })).json() as Array<{
      id: string;
    }>;
    const fav = await t.app.inject({
      method: 'PUT',
      url: `/api/photos/${photos[0]!.id}/favorite`,
      headers: { cookie: a.cookie },
      payload: { favorite: true },
    });
    expect(fav.statusCode).toBe(200);
    const page = (cookie: string) => t.app.inject({ url: '/api/photos/favorites?limit=200', headers: { cookie } });
    for (let i = 0; i < rule.max; i++) {
      const res = await page(a.cookie);
      if (res.statusCode !== 200) expect.fail(`request ${i + 1}: ${res.statusCode} ${res.body}`);
    }
    const refused = await page(a.cookie);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json().message).toMatch(/Too many attempts/);
    expect((await page(b.cookie)).statusCode).toBe(200);
  });
});
