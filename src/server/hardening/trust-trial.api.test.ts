import { eq } from 'drizzle-orm';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DAY_MS } from '@domain/calendar';
import { priceFor, TRIAL_DAYS } from '@domain/plans';
import { buildApp } from '../app';
import { subscriptions } from '../db/schema';
import { PAYMENT_PROVIDER_ERROR } from '../features/payments/stripe-gateway';
import { startStripeDouble, type StripeDouble } from '../features/payments/stripe-test-double';
import { ALREADY_ACTIVE, TRIAL_USED } from '../features/subscriptions/subscriptions.service';
import { createTestDatabase, signUp, testConfig, type TestDatabase } from '../test/harness';
import { webhookDelivery } from '../test/stripe-webhook';

/**
 * The upgrade modal's free trial: 7 days of Premium once per account, whatever the client sends;
 * after it the plan continues only through checkout. Stripe's own error text never reaches a client.
 */
const WEBHOOK_SECRET = 'whsec_trust_trial';
/** Text a Stripe error body may carry that is for the merchant's eyes only. */
const SECRET_BITS = ['sk_live_51Hidden', 'acct_1InternalAcct', 'cus_leakcustomer', 'internal-shard-7', 'req_debug'];

let app: FastifyInstance;
let database: TestDatabase;
let stripe: StripeDouble;
let cleanup: () => void;
const logLines: string[] = [];

beforeAll(async () => {
  stripe = await startStripeDouble();
  database = await createTestDatabase();
  const config = testConfig({
    stripe: { secretKey: 'sk_test_trial', webhookSecret: WEBHOOK_SECRET, publicKey: 'pk_test_trial' },
    stripeApi: stripe.api,
  });
  cleanup = config.cleanup;
  app = await buildApp(config, { database, logStream: { write: (line: string) => void logLines.push(line) } });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await database?.destroy();
  cleanup?.();
  await stripe?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

const inject = (opts: InjectOptions) => app.inject(opts);
const post = (cookie: string, url: string, payload?: object) =>
  inject({ method: 'POST', url, headers: { cookie }, ...(payload ? { payload } : {}) });
const view = async (cookie: string) => (await inject({ url: '/api/subscription', headers: { cookie } })).json();
const rowOf = async (userId: string) =>
  (await database.db.select().from(subscriptions).where(eq(subscriptions.userId, userId)))[0];

let eventCounter = 0;
function deliver(type: string, object: unknown) {
  eventCounter += 1;
  return inject(
    webhookDelivery({
      type,
      object,
      id: `evt_trial_${eventCounter}_${Date.now()}`,
      created: Math.floor(Date.now() / 1000),
      secret: WEBHOOK_SECRET,
    }),
  );
}

describe('attack: a long free plan from Start Free Trial', () => {
  it('a yearly trial ends within 7 days, not 365', async () => {
    const { cookie, user } = await signUp(app);
    const before = Date.now();
    const res = await post(cookie, '/api/subscription', { plan: 'yearly', status: 'active', price: 4999 });
    expect(res.statusCode).toBe(201);
    const end = Date.parse(res.json().endDate);
    expect(end - before).toBeGreaterThanOrEqual(TRIAL_DAYS * DAY_MS);
    expect(end).toBeLessThanOrEqual(Date.now() + TRIAL_DAYS * DAY_MS);
    expect(res.json()).toMatchObject({ trial: true, trialEndsAt: res.json().endDate, billingCycle: 'yearly' });
    // The gate agrees: just after the end there is no Premium left.
    await expect(app.ctx.subscriptions.isActive(user.id, new Date(end - 1000))).resolves.toBe(true);
    await expect(app.ctx.subscriptions.isActive(user.id, new Date(end + 1000))).resolves.toBe(false);
  });

  it('client-sent endDate, status, price and extra fields are ignored or refused', async () => {
    const { cookie, user } = await signUp(app);
    for (const forged of [
      { plan: 'yearly', price: 0 },
      { plan: 'yearly', price: 1 },
      // The post-trial catalogue price is not the modal's either.
      { plan: 'monthly', price: priceFor('premium', 'monthly') },
      { plan: 'monthly', status: 'canceled' },
      { plan: 'monthly', status: 'trialing' },
      { plan: 'lifetime' },
    ]) {
      const r = await post(cookie, '/api/subscription', forged);
      expect(r.statusCode, JSON.stringify(forged)).toBe(400);
    }
    // Refusals wrote nothing: the trial is still there to take.
    expect(await rowOf(user.id)).toBeUndefined();

    const res = await post(cookie, '/api/subscription', {
      plan: 'monthly',
      status: 'active',
      endDate: '2999-12-31T00:00:00Z',
      price: 499,
      tier: 'ultimate',
      source: 'stripe',
      trialEndsAt: '2999-12-31T00:00:00Z',
    });
    expect(res.statusCode).toBe(201);
    const row = await rowOf(user.id);
    expect(row).toMatchObject({ tier: 'premium', source: 'trial', billingCycle: 'monthly', price: 999 });
    expect(row!.endDate!.getTime()).toBeLessThanOrEqual(Date.now() + TRIAL_DAYS * DAY_MS);
  });

  it('a second trial is refused with 409: same plan, other plan, concurrent', async () => {
    const { cookie } = await signUp(app);
    const answers = await Promise.all(
      ['monthly', 'yearly', 'monthly', 'yearly'].map((plan) => post(cookie, '/api/subscription', { plan })),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409, 409, 409]);
    const first = await view(cookie);
    for (const plan of ['monthly', 'yearly']) {
      const again = await post(cookie, '/api/subscription', { plan });
      expect(again.statusCode).toBe(409);
      expect(again.json().message).toBe(ALREADY_ACTIVE);
    }
    // Nothing moved: same end, same plan.
    expect(await view(cookie)).toEqual(first);
  });

  it('a second trial after cancelling it is refused with 409', async () => {
    const { cookie } = await signUp(app);
    expect((await post(cookie, '/api/subscription', { plan: 'monthly' })).statusCode).toBe(201);
    expect((await post(cookie, '/api/subscription/cancel')).statusCode).toBe(200);
    for (const plan of ['monthly', 'yearly']) {
      const again = await post(cookie, '/api/subscription', { plan });
      expect(again.statusCode).toBe(409);
      expect(again.json().message).toBe(TRIAL_USED);
    }
    expect(await view(cookie)).toMatchObject({ status: 'canceled', tier: 'free', trial: false, trialAvailable: false });
  });

  it('after 7 days the trial has expired and cannot be started again', async () => {
    const { cookie, user } = await signUp(app);
    expect((await post(cookie, '/api/subscription', { plan: 'yearly' })).statusCode).toBe(201);
    // Only Date moves; timers stay real so the database keeps working.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + (TRIAL_DAYS + 1) * DAY_MS });
    expect(await view(cookie)).toMatchObject({
      status: 'expired',
      tier: 'free',
      price: 0,
      trial: false,
      trialEndsAt: null,
      trialAvailable: false,
    });
    expect(await app.ctx.subscriptions.isActive(user.id)).toBe(false);
    for (const plan of ['yearly', 'monthly']) {
      const again = await post(cookie, '/api/subscription', { plan });
      expect(again.statusCode).toBe(409);
      expect(again.json().message).toBe(TRIAL_USED);
    }
    // Paid features are closed again.
    await expect(app.ctx.subscriptions.requireActive(user.id)).rejects.toMatchObject({ statusCode: 403 });
  });

  it('checkout during a trial works, the paid plan replaces it, and no trial follows', async () => {
    const { cookie, user } = await signUp(app);
    expect((await post(cookie, '/api/subscription', { plan: 'monthly' })).statusCode).toBe(201);
    const upgrade = await post(cookie, '/api/subscription/upgrade', {
      tier: 'premium',
      billingCycle: 'monthly',
      price: 999,
    });
    expect(upgrade.statusCode).toBe(200);
    const checkout = await post(cookie, '/api/create-subscription', { tier: 'premium', billingCycle: 'monthly' });
    expect(checkout.statusCode).toBe(200);
    expect(checkout.json().amount).toBe(999);
    const sub = stripe.subscriptions.find((s) => s.id === checkout.json().subscriptionId)!;
    const { invoice } = stripe.pay(sub.id as string);
    expect((await deliver('invoice.paid', invoice)).statusCode).toBe(200);
    expect(await view(cookie)).toMatchObject({ status: 'active', source: 'stripe', trial: false, trialEndsAt: null });

    // Stripe ends it; the trial is still spent.
    await deliver('customer.subscription.deleted', {
      ...sub,
      status: 'canceled',
      ended_at: Math.floor(Date.now() / 1000),
    });
    expect(await app.ctx.subscriptions.isActive(user.id)).toBe(false);
    const again = await post(cookie, '/api/subscription', { plan: 'monthly' });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe(TRIAL_USED);
  });
});

describe('attack: Stripe error text reaching the client', () => {
  const errorBody = (type: string, status: number) => ({
    error: {
      type,
      code: 'resource_missing',
      message: `No such customer: 'cus_leakcustomer'; key sk_live_51Hidden on acct_1InternalAcct (internal-shard-7)`,
      doc_url: 'https://stripe.com/docs/error-codes/internal-shard-7',
      request_log_url: `https://dashboard.stripe.com/acct_1InternalAcct/logs/req_debug?status=${status}`,
      param: 'customer',
    },
  });
  const leaks = (body: string) => SECRET_BITS.filter((s) => body.includes(s));

  it('checkout: a refused Stripe call answers 502 with a generic message and logs the detail', async () => {
    const { cookie } = await signUp(app);
    stripe.failNext('POST', /^\/v1\/customers$/, 400, errorBody('invalid_request_error', 400));
    logLines.length = 0;
    const res = await post(cookie, '/api/create-subscription', { tier: 'basic', billingCycle: 'monthly' });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ message: PAYMENT_PROVIDER_ERROR, code: 'payment_provider' });
    expect(leaks(res.body)).toEqual([]);
    // The operator still sees what Stripe said.
    const logged = logLines.find((l) => l.includes('payment provider call failed'));
    expect(logged).toBeDefined();
    expect(logged).toContain('cus_leakcustomer');
    expect(logged).toContain('create customer');
  });

  it('checkout: Stripe failing on its side answers 503 with the same message', async () => {
    const { cookie } = await signUp(app);
    stripe.failNext('POST', /^\/v1\/subscriptions$/, 500, errorBody('api_error', 500));
    const res = await post(cookie, '/api/create-subscription', { tier: 'ultimate', billingCycle: 'yearly' });
    expect(res.statusCode).toBe(503);
    expect(res.json().message).toBe(PAYMENT_PROVIDER_ERROR);
    expect(leaks(res.body)).toEqual([]);
  });

  it('cancel and invoices: card and permission errors are not passed on either', async () => {
    const { cookie } = await signUp(app);
    const checkout = await post(cookie, '/api/create-subscription', { tier: 'basic', billingCycle: 'yearly' });
    const sub = stripe.subscriptions.find((s) => s.id === checkout.json().subscriptionId)!;
    const { invoice } = stripe.pay(sub.id as string);
    await deliver('invoice.paid', invoice);

    stripe.failNext('POST', /^\/v1\/subscriptions\/sub_/, 402, errorBody('card_error', 402));
    const cancel = await post(cookie, '/api/subscription/cancel');
    expect(cancel.statusCode).toBe(502);
    expect(cancel.json().message).toBe(PAYMENT_PROVIDER_ERROR);
    expect(leaks(cancel.body)).toEqual([]);
    // Nothing was half-written: the plan is not marked as ending.
    expect(await view(cookie)).toMatchObject({ status: 'active', cancelAtPeriodEnd: false });

    stripe.failNext('GET', /^\/v1\/invoices$/, 403, errorBody('invalid_request_error', 403));
    const invoices = await inject({ url: '/api/billing/invoices', headers: { cookie } });
    expect(invoices.statusCode).toBe(502);
    expect(invoices.json().message).toBe(PAYMENT_PROVIDER_ERROR);
    expect(leaks(invoices.body)).toEqual([]);
  });
});
