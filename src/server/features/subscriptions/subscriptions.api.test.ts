import type { InjectOptions } from 'fastify';
import { eq } from 'drizzle-orm';
import { DAY_MS } from '@domain/calendar';
import { PAYMENT_DUE_MESSAGE, priceFor } from '@domain/plans';
import { subscriptions } from '../../db/schema';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';
import { PREMIUM_REQUIRED_MESSAGE } from '@contract/subscriptions';
import { createSubscriptionReader } from './subscription-reader';

describe(`subscriptions API (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const inject = (opts: InjectOptions) => t.app.inject(opts);
  const get = (cookie: string) => inject({ method: 'GET', url: '/api/subscription', headers: { cookie } });
  const post = (cookie: string, url: string, payload?: object) =>
    inject({ method: 'POST', url, headers: { cookie }, ...(payload ? { payload } : {}) });

  it('needs a session', async () => {
    expect((await inject({ method: 'GET', url: '/api/subscription' })).statusCode).toBe(401);
    expect((await inject({ method: 'POST', url: '/api/subscription', payload: { plan: 'monthly' } })).statusCode).toBe(
      401,
    );
  });

  it('reads a new account as free, with the trial available', async () => {
    const { cookie } = await signUp(t.app);
    const res = await get(cookie);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'inactive',
      tier: 'free',
      billingCycle: 'monthly',
      price: 0,
      endDate: null,
      source: 'none',
      cancelAtPeriodEnd: false,
      trialAvailable: true,
      trial: false,
      trialEndsAt: null,
      paymentDue: false,
    });
  });

  it('starts a 7-day trial with the server-decided end date and the price checkout charges after it', async () => {
    const { cookie, user } = await signUp(t.app);
    // The server's clock (the app's, which earlier tests moved), never the test runner's.
    const before = t.clock.now().getTime();
    const farFuture = new Date(before + 3650 * DAY_MS).toISOString();
    const res = await post(cookie, '/api/subscription', {
      plan: 'yearly',
      status: 'active',
      endDate: farFuture,
      price: 4999,
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      status: 'active',
      tier: 'premium',
      billingCycle: 'yearly',
      // Premium yearly at checkout, the only way the plan continues.
      price: 9590,
      source: 'trial',
      trialAvailable: false,
      trial: true,
      trialEndsAt: body.endDate,
    });
    // The client's far-future end date is ignored: 7 days from now, whatever the plan.
    const end = Date.parse(body.endDate);
    expect(end).toBeGreaterThanOrEqual(before + 7 * DAY_MS);
    expect(end).toBeLessThanOrEqual(t.clock.now().getTime() + 7 * DAY_MS);
    expect(await t.app.ctx.subscriptions.isActive(user.id)).toBe(true);
    expect((await get(cookie)).json()).toEqual(body);

    const again = await post(cookie, '/api/subscription', { plan: 'monthly', status: 'active', price: 499 });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('You already have an active subscription.');
  });

  it('refuses a tampered trial price with 400 and stores nothing', async () => {
    const { cookie, user } = await signUp(t.app);
    const res = await post(cookie, '/api/subscription', { plan: 'yearly', status: 'active', price: 1 });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/price does not match/);
    expect(await t.app.ctx.subscriptions.isActive(user.id)).toBe(false);
    expect((await get(cookie)).json().trialAvailable).toBe(true);
  });

  it('checks upgrade prices against the catalogue and answers the checkout address', async () => {
    const { cookie } = await signUp(t.app);
    const ok = await post(cookie, '/api/subscription/upgrade', {
      tier: 'premium',
      billingCycle: 'yearly',
      price: 9590,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({
      checkoutUrl: '/checkout?tier=premium&billing=yearly',
      tier: 'premium',
      billingCycle: 'yearly',
      price: 9590,
    });
    const tampered = await post(cookie, '/api/subscription/upgrade', {
      tier: 'ultimate',
      billingCycle: 'monthly',
      price: 99,
    });
    expect(tampered.statusCode).toBe(400);
    expect(tampered.json().message).toMatch(/price does not match/);
    const unknownTier = await post(cookie, '/api/subscription/upgrade', {
      tier: 'gold',
      billingCycle: 'monthly',
      price: 1,
    });
    expect(unknownTier.statusCode).toBe(400);
    // Nothing was activated by an upgrade request: money moves only through checkout.
    expect((await get(cookie)).json().status).toBe('inactive');
  });

  it('refuses an upgrade while Stripe still bills an earlier plan (a failed renewal), saying why', async () => {
    const { cookie, user } = await signUp(t.app);
    await t.database.db.insert(subscriptions).values({
      userId: user.id,
      status: 'past_due',
      tier: 'basic',
      billingCycle: 'monthly',
      price: 499,
      endDate: new Date(Date.now() - 1000),
      source: 'stripe',
      stripeSubscriptionId: 'sub_due',
    });
    const res = await post(cookie, '/api/subscription/upgrade', {
      tier: 'premium',
      billingCycle: 'monthly',
      price: priceFor('premium', 'monthly'),
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe(PAYMENT_DUE_MESSAGE);
  });

  it('reads an expired subscription as inactive, on the free tier', async () => {
    const { cookie, user } = await signUp(t.app);
    await t.database.db.insert(subscriptions).values({
      userId: user.id,
      status: 'active',
      tier: 'ultimate',
      billingCycle: 'monthly',
      price: 1999,
      endDate: new Date(t.clock.now().getTime() - 1000),
      source: 'stripe',
    });
    const res = await get(cookie);
    expect(res.json()).toMatchObject({ status: 'expired', tier: 'free', price: 0, trialAvailable: false });
    const reader = createSubscriptionReader(t.database.db, t.clock.now);
    expect(await reader.isActive(user.id)).toBe(false);
    // The same row is active at an earlier instant.
    expect(await reader.isActive(user.id, new Date(t.clock.now().getTime() - 60_000))).toBe(true);
  });

  it('gates paid features on the server: a free user gets a 403 with a clear message', async () => {
    const { user: free } = await signUp(t.app);
    const { user: paid, cookie } = await signUp(t.app);
    await post(cookie, '/api/subscription', { plan: 'monthly', status: 'active', price: 499 });
    const reader = t.app.ctx.subscriptions;
    await expect(reader.requireActive(free.id)).rejects.toMatchObject({
      statusCode: 403,
      message: PREMIUM_REQUIRED_MESSAGE,
    });
    await expect(reader.requireActive(paid.id)).resolves.toBeUndefined();
    // 8 days later the 7-day trial has ended.
    await expect(
      reader.requireActive(paid.id, undefined, new Date(t.clock.now().getTime() + 8 * DAY_MS)),
    ).rejects.toMatchObject({
      statusCode: 403,
    });
  });

  it('cancels a trial at once, returning the account to free; the trial is not offered again', async () => {
    const { cookie, user } = await signUp(t.app);
    expect((await post(cookie, '/api/subscription/cancel')).statusCode).toBe(409);
    await post(cookie, '/api/subscription', { plan: 'monthly', status: 'active', price: 499 });
    const res = await post(cookie, '/api/subscription/cancel');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'canceled',
      tier: 'free',
      price: 0,
      trialAvailable: false,
      trial: false,
      trialEndsAt: null,
    });
    expect(await t.app.ctx.subscriptions.isActive(user.id)).toBe(false);
    const [row] = await t.database.db.select().from(subscriptions).where(eq(subscriptions.userId, user.id));
    expect(row!.status).toBe('canceled');

    const retry = await post(cookie, '/api/subscription', { plan: 'monthly', status: 'active', price: 499 });
    expect(retry.statusCode).toBe(409);
    expect(retry.json().message).toMatch(/free trial has already been used/);
  });

  it('validates the payload', async () => {
    const { cookie } = await signUp(t.app);
    const res = await post(cookie, '/api/subscription', { plan: 'weekly' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/^plan/);
  });
});
