import type { InjectOptions } from 'fastify';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';
import { webhookDelivery } from '../../test/stripe-webhook';
import { buildApp } from '../../app';
import { openDatabase, type Database } from '../../db/client';
import {
  CHECKOUT_BUSY_MESSAGE,
  CHECKOUT_RETRY_AFTER_SECONDS,
  CHECKOUT_WAIT_MS,
  LIVE_ON_STRIPE_MESSAGE,
  PAYMENT_DUE_MESSAGE,
} from './payments.service';
import { SUPERSEDED_CHECKOUT } from './stripe-gateway';
import { startStripeDouble, type StripeDouble } from './stripe-test-double';

const WEBHOOK_SECRET = 'whsec_test_eyevu';

describe(`payments API with a Stripe test double (${testDbKind})`, () => {
  let t: TestApp;
  let stripe: StripeDouble;
  beforeAll(async () => {
    stripe = await startStripeDouble();
    t = await createTestApp({
      stripe: { secretKey: 'sk_test_eyevu', webhookSecret: WEBHOOK_SECRET, publicKey: 'pk_test_eyevu' },
      stripeApi: stripe.api,
    });
  });
  afterAll(async () => {
    await t.close();
    await stripe.close();
  });

  const inject = (opts: InjectOptions) => t.app.inject(opts);
  const createSub = (cookie: string, payload: object) =>
    inject({ method: 'POST', url: '/api/create-subscription', headers: { cookie }, payload });
  const getSub = async (cookie: string) =>
    (await inject({ method: 'GET', url: '/api/subscription', headers: { cookie } })).json();

  /**
   * `next` settles when a checkout through `database` finds another of its account under way and
   * starts waiting for it (`Database.serialise`'s onContended).
   */
  function watchWaits(database: Database) {
    const original = database.serialise;
    let waited!: () => void;
    const next = new Promise<void>((resolve) => (waited = resolve));
    database.serialise = (name, work, opts) =>
      original(name, work, {
        ...opts,
        onContended: () => {
          opts.onContended?.();
          waited();
        },
      });
    return { next, restore: () => void (database.serialise = original) };
  }

  let eventCounter = 0;
  /** A webhook delivery signed by the SDK's own test-header helper. */
  function deliver(type: string, object: unknown, opts: { created?: number; id?: string; secret?: string } = {}) {
    eventCounter += 1;
    return inject(
      webhookDelivery({
        type,
        object,
        id: opts.id ?? `evt_test_${eventCounter}_${Date.now()}`,
        created: opts.created ?? Math.floor(Date.now() / 1000),
        secret: opts.secret ?? WEBHOOK_SECRET,
      }),
    );
  }

  /** Signs up, starts checkout for a plan and returns the Stripe objects the double made. */
  async function checkout(tier = 'premium', billingCycle = 'monthly') {
    const account = await signUp(t.app);
    const res = await createSub(account.cookie, { tier, billingCycle });
    expect(res.statusCode).toBe(200);
    const sub = stripe.subscriptions.find((s) => s.id === res.json().subscriptionId)!;
    return { ...account, res, sub };
  }

  it('publishes the Stripe publishable key at run time', async () => {
    const res = await inject({ method: 'GET', url: '/api/config' });
    expect(res.json()).toEqual({ stripePublicKey: 'pk_test_eyevu' });
  });

  it('creates a customer and an incomplete subscription priced from the catalogue', async () => {
    const { res, user, sub } = await checkout('premium', 'yearly');
    const body = res.json();
    expect(body.amount).toBe(9590);
    expect(body.clientSecret).toMatch(/^pi_[0-9a-f]+_secret_/);

    const create = stripe.requests.find((r) => r.method === 'POST' && r.path === '/v1/subscriptions')!;
    expect(create.authorization).toBe('Bearer sk_test_eyevu');
    expect(create.params.get('payment_behavior')).toBe('default_incomplete');
    expect(create.params.get('payment_settings[save_default_payment_method]')).toBe('on_subscription');
    expect([...create.params.entries()]).toContainEqual(['expand[0]', 'latest_invoice.confirmation_secret']);
    expect(create.params.get('metadata[user_id]')).toBe(user.id);
    expect(create.idempotencyKey).toMatch(new RegExp(`^eyevu-subscription-${user.id}-`));
    const price = stripe.prices.find((p) => p.lookup_key === 'eyevu_premium_yearly')!;
    expect(price).toMatchObject({ unit_amount: 9590, currency: 'usd', recurring: { interval: 'year' } });
    expect(sub.status).toBe('incomplete');
    // Nothing is provisioned before Stripe says the invoice is paid.
    expect((await getSub((await signUp(t.app)).cookie)).status).toBe('inactive');
  });

  it('reuses the open subscription, customer and price on a retry instead of charging twice', async () => {
    const { cookie, res } = await checkout('basic', 'monthly');
    const customersBefore = stripe.customers.length;
    const subsBefore = stripe.subscriptions.length;
    const pricesBefore = stripe.prices.length;
    const retry = await createSub(cookie, { tier: 'basic', billingCycle: 'monthly' });
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toEqual(res.json());
    expect(stripe.customers.length).toBe(customersBefore);
    expect(stripe.subscriptions.length).toBe(subsBefore);
    expect(stripe.prices.length).toBe(pricesBefore);
    expect(retry.json().amount).toBe(499);
  });

  it('a checkout for another plan (a second tab) closes the first: two plans are never both payable', async () => {
    const { cookie, sub: basic } = await checkout('basic', 'monthly');
    const invoiceOf = (sub: Record<string, unknown>) => stripe.invoices.find((i) => i.id === sub.latest_invoice)!;
    const premiumRes = await createSub(cookie, { tier: 'premium', billingCycle: 'monthly' });
    expect(premiumRes.statusCode).toBe(200);
    const premium = stripe.subscriptions.find((s) => s.id === premiumRes.json().subscriptionId)!;
    expect(premium.id).not.toBe(basic.id);
    // The first tab's form can no longer pay: its subscription is ended and its invoice voided.
    expect(basic.status).toBe('canceled');
    expect(invoiceOf(basic).status).toBe('void');
    expect(() => stripe.pay(basic.id as string)).toThrow(/void/);

    // The first tab reloads: its plan gets a new, payable checkout (not the closed one replayed
    // under the same idempotency key), and the second tab's is closed in turn.
    const again = await createSub(cookie, { tier: 'basic', billingCycle: 'monthly' });
    expect(again.statusCode).toBe(200);
    expect(again.json().subscriptionId).not.toBe(basic.id);
    const basicAgain = stripe.subscriptions.find((s) => s.id === again.json().subscriptionId)!;
    expect(basicAgain.status).toBe('incomplete');
    expect(premium.status).toBe('canceled');
    expect(invoiceOf(premium).status).toBe('void');

    // The closed checkouts' deletion events record nothing: they held nothing, and the free
    // trial is still there for an account that never paid.
    await deliver('customer.subscription.deleted', basic);
    await deliver('customer.subscription.deleted', premium);
    expect(await getSub(cookie)).toMatchObject({ status: 'inactive', source: 'none', trialAvailable: true });

    const { invoice } = stripe.pay(basicAgain.id as string);
    await deliver('invoice.paid', invoice);
    expect(await getSub(cookie)).toMatchObject({ status: 'active', tier: 'basic', price: 499 });
    const billable = stripe.subscriptions.filter(
      (s) => s.customer === basic.customer && ['active', 'incomplete'].includes(s.status as string),
    );
    expect(billable.map((s) => s.id)).toEqual([basicAgain.id]);
  });

  it('two checkouts for one plan at once (a double submit) make one subscription, both answered with it', async () => {
    // The customer has an open checkout for another plan (its first tab).
    const { cookie, sub: basic } = await checkout('basic', 'monthly');
    const premium = { tier: 'premium', billingCycle: 'monthly' };
    // The first request is held reading the customer's subscriptions (after its check for a live
    // one), and the second arrives meanwhile.
    const held = stripe.holdAnswer('GET', /^\/v1\/subscriptions$/, 1);
    const waits = watchWaits(t.database);
    try {
      const first = createSub(cookie, premium);
      await held.reached;
      const second = createSub(cookie, premium);
      await Promise.race([waits.next, second]);
      held.release();
      const answers = await Promise.all([first, second]);
      expect(answers.map((r) => r.statusCode)).toEqual([200, 200]);
      expect(answers[1].json().subscriptionId).toBe(answers[0].json().subscriptionId);
      const payable = stripe.subscriptions.filter((s) => s.customer === basic.customer && s.status === 'incomplete');
      expect(payable.map((s) => s.id)).toEqual([answers[0].json().subscriptionId]);
    } finally {
      waits.restore();
    }
  });

  it('two checkouts for two plans in the same moment, on two servers: the one answered stays payable, the other is told so', async () => {
    // A second server on the same database: on PostgreSQL another process (a pool of its own); the
    // embedded database is one process, so its servers share it.
    const otherDatabase: Database =
      testDbKind === 'postgres' ? await openDatabase({ databaseUrl: t.database.url!, pgliteDir: '' }) : t.database;
    const other = await buildApp(t.config, { database: otherDatabase, now: t.clock.now });
    await other.ready();
    const waits = watchWaits(otherDatabase);
    try {
      const { cookie, sub: basic } = await checkout('basic', 'monthly');
      // The premium request reads the open checkouts (after its check for a live one) and is held
      // there; the ultimate request reaches the other server meanwhile. Before the per-account
      // lock, the ultimate one ran to its end first (answered 200) and premium's closed it after.
      const held = stripe.holdAnswer('GET', /^\/v1\/subscriptions$/, 1);
      const premium = createSub(cookie, { tier: 'premium', billingCycle: 'monthly' });
      await held.reached;
      const ultimate = other.inject({
        method: 'POST',
        url: '/api/create-subscription',
        headers: { cookie },
        payload: { tier: 'ultimate', billingCycle: 'monthly' },
      });
      await Promise.race([waits.next, ultimate]);
      held.release();
      const [first, late] = await Promise.all([premium, ultimate]);
      const payable = stripe.subscriptions.filter((s) => s.customer === basic.customer && s.status === 'incomplete');
      // Every checkout answered 200 can still be paid (before the lock, one answered 200 could be
      // closed by the other's later read), and the holder's is the one.
      for (const answer of [first, late].filter((r) => r.statusCode === 200)) {
        expect(payable.map((s) => s.id)).toContain(answer.json().subscriptionId);
      }
      expect(first.statusCode).toBe(200);
      expect(late.statusCode).toBe(409);
      expect(late.json().message).toBe(SUPERSEDED_CHECKOUT);
      expect(payable.map((s) => s.id)).toEqual([first.json().subscriptionId]);
      const { invoice } = stripe.pay(first.json().subscriptionId as string);
      await deliver('invoice.paid', invoice);
      expect(await getSub(cookie)).toMatchObject({ status: 'active', tier: 'premium' });
      // The first tab (basic) was closed, as by any later checkout: its deletion records nothing.
      await deliver('customer.subscription.deleted', basic);
      expect(await getSub(cookie)).toMatchObject({ status: 'active', tier: 'premium' });
    } finally {
      waits.restore();
      await other.close();
      if (otherDatabase !== t.database) await otherDatabase.close();
    }
  });

  it("a checkout whose other open checkout is paid in the same moment (the first tab's form) is refused, not left payable beside it", async () => {
    const { cookie, sub: basic } = await checkout('basic', 'monthly');
    // The premium request reads the open checkouts (after its check for a live one); the first
    // tab's form pays basic before that answer arrives, so basic can no longer be closed.
    const held = stripe.holdAnswer('GET', /^\/v1\/subscriptions$/, 1);
    const premium = createSub(cookie, { tier: 'premium', billingCycle: 'monthly' });
    await held.reached;
    const { invoice } = stripe.pay(basic.id as string);
    held.release();
    const res = await premium;
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe(LIVE_ON_STRIPE_MESSAGE);
    const billable = stripe.subscriptions.filter(
      (s) => s.customer === basic.customer && ['active', 'incomplete'].includes(s.status as string),
    );
    expect(billable.map((s) => s.id)).toEqual([basic.id]);
    await deliver('invoice.paid', invoice);
    expect(await getSub(cookie)).toMatchObject({ status: 'active', tier: 'basic' });
  });

  it('a checkout that waits past its bound for another of the account is answered 503 with Retry-After, and the next one goes through', async () => {
    const { cookie, user } = await signUp(t.app);
    let release!: () => void;
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holds = new Promise<void>((resolve) => (holding = resolve));
    // Another checkout of the account holds the gate until released (Stripe slow to answer it).
    const holder = t.database.serialise(
      `checkout:${user.id}`,
      async () => {
        holding();
        await held;
      },
      { waitMs: CHECKOUT_WAIT_MS },
    );
    await holds;
    // The bound shortened: the holder never lets go before the waiter's bound is over, whatever it is.
    const original = t.database.serialise;
    t.database.serialise = (name, work, opts) => original(name, work, { ...opts, waitMs: 50 });
    try {
      const refused = await createSub(cookie, { tier: 'basic', billingCycle: 'monthly' });
      // A moment's wait that ran out, not a conflict: 409 told the client to choose again.
      expect(refused.statusCode).toBe(503);
      expect(refused.json()).toEqual({ message: CHECKOUT_BUSY_MESSAGE, code: 'busy' });
      expect(refused.headers['retry-after']).toBe(String(CHECKOUT_RETRY_AFTER_SECONDS));
    } finally {
      t.database.serialise = original;
      release();
      await holder;
    }
    expect(
      stripe.subscriptions.filter((s) => s.metadata && (s.metadata as { user_id?: string }).user_id === user.id),
    ).toEqual([]);
    expect((await createSub(cookie, { tier: 'basic', billingCycle: 'monthly' })).statusCode).toBe(200);
  });

  it('refuses the free tier and unknown tiers', async () => {
    const { cookie } = await signUp(t.app);
    expect((await createSub(cookie, { tier: 'free', billingCycle: 'monthly' })).statusCode).toBe(400);
    expect((await createSub(cookie, { tier: 'platinum', billingCycle: 'monthly' })).statusCode).toBe(400);
    expect(
      (
        await inject({
          method: 'POST',
          url: '/api/create-subscription',
          payload: { tier: 'basic', billingCycle: 'monthly' },
        })
      ).statusCode,
    ).toBe(401);
  });

  it('refuses a webhook with a bad or missing signature (400) and changes nothing', async () => {
    const { cookie, sub } = await checkout();
    const { invoice } = stripe.pay(sub.id as string);
    const forged = await deliver('invoice.paid', invoice, { secret: 'whsec_wrong' });
    expect(forged.statusCode).toBe(400);
    expect(forged.json().message).toBe('Invalid webhook signature.');
    const unsigned = await inject({
      method: 'POST',
      url: '/api/stripe/webhook',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ id: 'evt_x', type: 'invoice.paid', data: { object: invoice } }),
    });
    expect(unsigned.statusCode).toBe(400);
    expect((await getSub(cookie)).status).toBe('inactive');
  });

  it('activates on invoice.paid until the period end, and processes a duplicate delivery once', async () => {
    const { cookie, user, sub } = await checkout('ultimate', 'monthly');
    const { invoice } = stripe.pay(sub.id as string);
    const first = await deliver('invoice.paid', invoice, { id: 'evt_dup_1' });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ received: true, duplicate: false });
    const state = await getSub(cookie);
    const periodEnd = (invoice.lines as { data: Array<{ period: { end: number } }> }).data[0]!.period.end;
    expect(state).toMatchObject({
      status: 'active',
      tier: 'ultimate',
      billingCycle: 'monthly',
      price: 1999,
      source: 'stripe',
    });
    expect(Date.parse(state.endDate)).toBe(periodEnd * 1000);
    expect(await t.app.ctx.subscriptions.isActive(user.id)).toBe(true);

    // The same event again is acknowledged but not applied a second time.
    const again = await deliver('invoice.paid', invoice, { id: 'evt_dup_1' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ received: true, duplicate: true });
  });

  it('marks past due on a failed payment, and out-of-order events end in the newest state', async () => {
    const { cookie, sub } = await checkout('premium', 'monthly');
    const { invoice } = stripe.pay(sub.id as string);
    const t0 = Math.floor(Date.now() / 1000);
    await deliver('invoice.paid', invoice, { created: t0 });
    expect((await getSub(cookie)).status).toBe('active');

    // A later renewal fails...
    const failed = await deliver('invoice.payment_failed', { ...invoice, status: 'open' }, { created: t0 + 100 });
    expect(failed.statusCode).toBe(200);
    expect((await getSub(cookie)).status).toBe('past_due');
    // ...and an older paid event delivered late does not roll it back.
    const late = await deliver('invoice.paid', invoice, { created: t0 + 50 });
    expect(late.statusCode).toBe(200);
    expect((await getSub(cookie)).status).toBe('past_due');

    // The newest subscription.updated (active again after a retry) wins.
    await deliver('customer.subscription.updated', { ...sub, status: 'active' }, { created: t0 + 200 });
    expect((await getSub(cookie)).status).toBe('active');
  });

  it('a deleted subscription deactivates, even if an older update arrives after it', async () => {
    const { cookie, user, sub } = await checkout('basic', 'yearly');
    const { invoice } = stripe.pay(sub.id as string);
    const t0 = Math.floor(Date.now() / 1000);
    // Deleted arrives first, the (older) paid invoice and update afterwards.
    const ended = t0 + 10;
    const deleted = await deliver(
      'customer.subscription.deleted',
      { ...sub, status: 'canceled', ended_at: ended, canceled_at: ended },
      { created: t0 + 10 },
    );
    expect(deleted.statusCode).toBe(200);
    await deliver('invoice.paid', invoice, { created: t0 });
    await deliver('customer.subscription.updated', { ...sub, status: 'active' }, { created: t0 + 1 });
    const state = await getSub(cookie);
    expect(state.tier).toBe('free');
    expect(state.status).toBe('canceled');
    expect(await t.app.ctx.subscriptions.isActive(user.id)).toBe(false);
  });

  it('a paid subscription ends when Stripe deletes it after being active', async () => {
    const { cookie, user, sub } = await checkout('premium', 'yearly');
    const { invoice } = stripe.pay(sub.id as string);
    const t0 = Math.floor(Date.now() / 1000);
    await deliver('invoice.paid', invoice, { created: t0 });
    expect(await t.app.ctx.subscriptions.isActive(user.id)).toBe(true);
    await deliver(
      'customer.subscription.deleted',
      { ...sub, status: 'canceled', ended_at: t0 + 5 },
      { created: t0 + 5 },
    );
    expect(await getSub(cookie)).toMatchObject({ status: 'canceled', tier: 'free' });
    expect(await t.app.ctx.subscriptions.isActive(user.id)).toBe(false);
  });

  it('cancels a Stripe subscription at the period end and lists the invoices', async () => {
    const { cookie, sub } = await checkout('basic', 'monthly');
    const { invoice } = stripe.pay(sub.id as string);
    await deliver('invoice.paid', invoice);
    const res = await inject({ method: 'POST', url: '/api/subscription/cancel', headers: { cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'active', cancelAtPeriodEnd: true, tier: 'basic' });
    expect(stripe.subscriptions.find((s) => s.id === sub.id)!.cancel_at_period_end).toBe(true);

    const invoices = await inject({ method: 'GET', url: '/api/billing/invoices', headers: { cookie } });
    expect(invoices.statusCode).toBe(200);
    expect(invoices.json().invoices).toEqual([
      expect.objectContaining({ id: invoice.id, amount: 499, currency: 'usd', status: 'paid' }),
    ]);
  });

  it('a failed renewal: the paused plan is cancelled at once on request, and checkout waits until then', async () => {
    const { cookie, sub } = await checkout('premium', 'monthly');
    const { invoice } = stripe.pay(sub.id as string);
    const t0 = Math.floor(Date.now() / 1000);
    await deliver('invoice.paid', invoice, { created: t0 });
    // Stripe keeps the subscription and retries the charge for weeks.
    sub.status = 'past_due';
    await deliver('invoice.payment_failed', { ...invoice, status: 'open' }, { created: t0 + 10 });
    expect(await getSub(cookie)).toMatchObject({ status: 'past_due', tier: 'free', paymentDue: true });
    const liveOf = () =>
      stripe.subscriptions.filter(
        (s) => s.customer === sub.customer && ['active', 'past_due', 'incomplete'].includes(s.status as string),
      );

    // A new plan now would be a second subscription billing the same customer.
    const refused = await createSub(cookie, { tier: 'basic', billingCycle: 'monthly' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(PAYMENT_DUE_MESSAGE);
    expect(liveOf()).toHaveLength(1);

    // Cancelling stops the retries at once (not at a period's end the plan no longer has).
    const cancel = await inject({ method: 'POST', url: '/api/subscription/cancel', headers: { cookie } });
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json()).toMatchObject({ status: 'canceled', tier: 'free', paymentDue: false });
    expect(stripe.subscriptions.find((s) => s.id === sub.id)!.status).toBe('canceled');
    expect(liveOf()).toHaveLength(0);
    // Stripe's deletion event, when it comes, leaves it so; a new plan can be bought.
    await deliver(
      'customer.subscription.deleted',
      { ...sub, status: 'canceled', ended_at: t0 + 20 },
      { created: t0 + 20 },
    );
    expect(await getSub(cookie)).toMatchObject({ status: 'canceled', paymentDue: false });
    expect((await createSub(cookie, { tier: 'basic', billingCycle: 'monthly' })).statusCode).toBe(200);
  });

  it('checkout asks Stripe too: a subscription it still bills, whatever the stored row says, is not doubled', async () => {
    const { cookie, sub } = await checkout('premium', 'monthly');
    const { invoice } = stripe.pay(sub.id as string);
    const t0 = Math.floor(Date.now() / 1000);
    await deliver('invoice.paid', invoice, { created: t0 });
    // The row says it ended (an event for it), while Stripe still holds it active.
    await deliver(
      'customer.subscription.deleted',
      { ...sub, status: 'canceled', ended_at: t0 + 5 },
      { created: t0 + 5 },
    );
    expect(await getSub(cookie)).toMatchObject({ status: 'canceled', paymentDue: false });
    const refused = await createSub(cookie, { tier: 'basic', billingCycle: 'monthly' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(LIVE_ON_STRIPE_MESSAGE);
  });

  /** A paid premium subscription whose renewal then failed: the row past due, as Stripe says. */
  async function pastDue() {
    const account = await checkout('premium', 'monthly');
    const { invoice } = stripe.pay(account.sub.id as string);
    const t0 = Math.floor(Date.now() / 1000);
    await deliver('invoice.paid', invoice, { created: t0 });
    account.sub.status = 'past_due';
    await deliver('invoice.payment_failed', { ...invoice, status: 'open' }, { created: t0 + 10 });
    expect(await getSub(account.cookie)).toMatchObject({ status: 'past_due', paymentDue: true });
    return account;
  }
  const cancel = (cookie: string) => inject({ method: 'POST', url: '/api/subscription/cancel', headers: { cookie } });

  it('Cancel on a past-due row whose renewal Stripe has just collected (its webhook on the way) ends it at the period end, not now', async () => {
    const { cookie, sub } = await pastDue();
    sub.status = 'active'; // the retry went through; invoice.paid not delivered yet
    const res = await cancel(cookie);
    expect(res.statusCode).toBe(200);
    expect(sub.status).toBe('active');
    expect(sub.cancel_at_period_end).toBe(true);
    expect(res.json()).toMatchObject({ cancelAtPeriodEnd: true });
    // Stripe's update arrives: active until the period's end, then over.
    const later = Math.floor(Date.now() / 1000) + 60;
    await deliver('customer.subscription.updated', { ...sub }, { created: later });
    expect(await getSub(cookie)).toMatchObject({ status: 'active', cancelAtPeriodEnd: true, paymentDue: false });
  });

  it('two Cancels at once on a past-due subscription both succeed (Stripe refuses the second as missing)', async () => {
    const { cookie, sub } = await pastDue();
    // Both have read the row before either acts: Stripe's status is answered to both together.
    stripe.gatherNext('GET', /^\/v1\/subscriptions\/[^/]+$/, 2);
    const [a, b] = await Promise.all([cancel(cookie), cancel(cookie)]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(sub.status).toBe('canceled');
    expect(await getSub(cookie)).toMatchObject({ status: 'canceled', paymentDue: false });
  });

  it('a past-due subscription Stripe has ended itself (its deletion event lost): Cancel marks it ended, and a new plan can be bought', async () => {
    const { cookie, sub } = await pastDue();
    sub.status = 'canceled';
    expect((await createSub(cookie, { tier: 'basic', billingCycle: 'monthly' })).statusCode).toBe(409);
    const res = await cancel(cookie);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'canceled', paymentDue: false });
    expect((await createSub(cookie, { tier: 'basic', billingCycle: 'monthly' })).statusCode).toBe(200);
  });

  it('a paid subscription supersedes a running trial', async () => {
    const { cookie, user } = await signUp(t.app);
    await inject({ method: 'POST', url: '/api/subscription', headers: { cookie }, payload: { plan: 'monthly' } });
    const res = await createSub(cookie, { tier: 'ultimate', billingCycle: 'yearly' });
    const sub = stripe.subscriptions.find((s) => s.id === res.json().subscriptionId)!;
    // An incomplete update does not clobber the trial.
    await deliver('customer.subscription.updated', sub);
    expect((await getSub(cookie)).source).toBe('trial');
    const { invoice } = stripe.pay(sub.id as string);
    await deliver('invoice.paid', invoice);
    expect(await getSub(cookie)).toMatchObject({ status: 'active', tier: 'ultimate', source: 'stripe' });
    expect(await t.app.ctx.subscriptions.isActive(user.id)).toBe(true);
  });

  it("an earlier subscription's event delivered late (a retry) does not replace the one bought after it", async () => {
    const { cookie, user, sub: first } = await checkout('ultimate', 'monthly');
    const t0 = Math.floor(Date.now() / 1000);
    const { invoice: firstInvoice } = stripe.pay(first.id as string);
    await deliver('invoice.paid', firstInvoice, { created: t0 });
    // The first ends early (Stripe deleted it: failed renewals, a dispute...), its period not over.
    first.status = 'canceled';
    await deliver('customer.subscription.deleted', { ...first, ended_at: t0 + 10 }, { created: t0 + 10 });
    expect(await getSub(cookie)).toMatchObject({ status: 'canceled', tier: 'free' });
    // A new plan is bought and paid.
    const res = await createSub(cookie, { tier: 'basic', billingCycle: 'monthly' });
    expect(res.statusCode).toBe(200);
    const second = stripe.subscriptions.find((s) => s.id === res.json().subscriptionId)!;
    const { invoice } = stripe.pay(second.id as string);
    await deliver('invoice.paid', invoice, { created: t0 + 20 });
    expect(await getSub(cookie)).toMatchObject({ status: 'active', tier: 'basic' });
    // Stripe retries a delivery of the first one's older update (it failed at the time).
    await deliver('customer.subscription.updated', { ...first, status: 'active' }, { created: t0 + 1 });
    // Still the second: the plan paid for, and the one Cancel acts on.
    expect(await getSub(cookie)).toMatchObject({ status: 'active', tier: 'basic', price: 499 });
    const cancel = await inject({ method: 'POST', url: '/api/subscription/cancel', headers: { cookie } });
    expect(cancel.statusCode).toBe(200);
    expect(second.cancel_at_period_end).toBe(true);
    expect(await t.app.ctx.subscriptions.isActive(user.id)).toBe(true);
  });
});

describe(`payments API without Stripe configuration (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers 503 for checkout and the webhook, null config and no invoices', async () => {
    const { cookie } = await signUp(t.app);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/create-subscription',
      headers: { cookie },
      payload: { tier: 'premium', billingCycle: 'monthly' },
    });
    expect(res.statusCode).toBe(503);
    expect(res.json().message).toBe('Payment System Unavailable');
    const hook = await t.app.inject({
      method: 'POST',
      url: '/api/stripe/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=x' },
      payload: '{}',
    });
    expect(hook.statusCode).toBe(503);
    expect((await t.app.inject({ method: 'GET', url: '/api/config' })).json()).toEqual({ stripePublicKey: null });
    const invoices = await t.app.inject({ method: 'GET', url: '/api/billing/invoices', headers: { cookie } });
    expect(invoices.json()).toEqual({ invoices: [] });
  });
});
