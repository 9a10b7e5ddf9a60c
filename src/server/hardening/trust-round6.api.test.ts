import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UploadResponse } from '@contract/photos';
import { REWARD_POINTS } from '@domain/rewards';
import { createPaymentsService } from '../features/payments/payments.service';
import type { StripeGateway } from '../features/payments/stripe-gateway';
import { createSubscriptionsRepository, type SubscriptionsRepository } from '../features/subscriptions/index';
import { DEFAULT_RATE_LIMITS } from '../http/rate-limits';
import { createTestApp, signUp, testDbKind, type TestApp } from '../test/harness';
import { postPhotos } from '../test/multipart';
import { expectLimited, spendAllOk } from './budget';
import { countOf, jpeg } from './support';

/**
 * Round six of the attacker's audit: writes a client may repeat without a limit that cost the server
 * more than they look, and Stripe events racing for one user. Each test failed before its fix (the
 * Stripe race on PostgreSQL, where it happens: PGlite runs one transaction at a time).
 */
describe(`trust: writes repeated without a limit, and racing (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it("a revert of a photo with no filter, or a favourite set again, keeps the library's version and its kept pages", async () => {
    const { cookie, user } = await signUp(t.app);
    const up = await postPhotos(t.app, cookie, [{ name: 'a.jpg', bytes: await jpeg(1) }]);
    const [first] = (up.json() as UploadResponse).results;
    if (!first?.ok) throw new Error(`upload refused: ${up.body}`);
    const photoId = first.photo.id;
    const version = () =>
      countOf(t.database.db, sql`select version::int n from photo_library where user_id = ${user.id}`);
    const page = (etag?: string) =>
      t.app.inject({
        method: 'GET',
        url: '/api/photos/timeline',
        headers: { cookie, ...(etag ? { 'if-none-match': etag } : {}) },
      });
    const revert = () =>
      t.app.inject({ method: 'POST', url: '/api/photo-filters/revert', headers: { cookie }, payload: { photoId } });
    const setFavourite = (favorite: boolean) =>
      t.app.inject({
        method: 'PUT',
        url: `/api/photos/${photoId}/favorite`,
        headers: { cookie },
        payload: { favorite },
      });
    const etag = String((await page()).headers.etag);
    const before = await version();

    // Each of these was a new library version before: a write to the library row, a notification
    // to every listening connection of every server process, and the owner's kept first pages
    // dropped. The revert has no request limit, so a loop did that as fast as it could send.
    for (let i = 0; i < 5; i++) {
      const reverted = await revert();
      expect(reverted.statusCode).toBe(200);
      expect(reverted.json().photo.appliedFilter ?? null).toBeNull();
      expect((await setFavourite(false)).statusCode).toBe(200);
    }
    expect(await version()).toBe(before);
    expect((await page(etag)).statusCode).toBe(304);

    // A write that changes the photo still moves the version, and the page with it.
    expect((await setFavourite(true)).statusCode).toBe(200);
    expect(await version()).toBe(before + 1);
    const changed = await page(etag);
    expect(changed.statusCode).toBe(200);
    expect(changed.json().items[0].favorite).toBe(true);

    // An applied filter and its revert are changes; the revert after them is not.
    const apply = await t.app.inject({
      method: 'POST',
      url: '/api/photo-filters/apply',
      headers: { cookie },
      payload: { photoId, filterName: 'vintage', intensity: 100 },
    });
    expect(apply.statusCode).toBe(200);
    const applied = await version();
    expect(applied).toBeGreaterThan(before + 1);
    expect((await revert()).statusCode).toBe(200);
    expect(await version()).toBe(applied + 1);
    expect((await revert()).statusCode).toBe(200);
    expect(await version()).toBe(applied + 1);
  });

  it('POST /api/app-status/activate (it totals the points ledger) is refused past its per-user budget and its repeats mint nothing', async () => {
    const rule = DEFAULT_RATE_LIMITS['POST /api/app-status/activate']?.[0];
    if (!rule) throw new Error('POST /api/app-status/activate has no limit');
    expect(rule.key).toBe('user');
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const activate = (cookie: string) =>
      t.app.inject({ method: 'POST', url: '/api/app-status/activate', headers: { cookie }, payload: {} });
    const points = async (cookie: string) =>
      (await t.app.inject({ method: 'GET', url: '/api/rewards', headers: { cookie } })).json().totalPoints as number;
    const start = await points(a.cookie);
    const firstCall = await activate(a.cookie);
    expect(firstCall.statusCode).toBe(200);
    expect(firstCall.json().points).toBe(REWARD_POINTS.activation);
    await spendAllOk(1, rule.max, () => activate(a.cookie));
    const refused = await activate(a.cookie);
    expectLimited(refused);
    expect(refused.json().message).toMatch(/^Too many attempts\. Please wait \d+ minute\(s\) and try again\.$/);
    // The day's activation was paid once, whatever the number of calls.
    expect(await points(a.cookie)).toBe(start + REWARD_POINTS.activation);
    // Switching off is not held by it, nor is another account.
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/app-status/deactivate', headers: { cookie: a.cookie } }))
        .statusCode,
    ).toBe(200);
    expect((await activate(b.cookie)).statusCode).toBe(200);
  });

  it('an older invoice.paid that read before a newer deletion cannot write after it: the subscription stays ended', async () => {
    const { user, cookie } = await signUp(t.app);
    const repo = createSubscriptionsRepository(t.database.db);
    // Stripe delivers events concurrently and out of order. The older event's transaction is held
    // between its read of the user's row (none yet: a first checkout) and its write.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let olderRead!: () => void;
    const olderHasRead = new Promise<void>((resolve) => (olderRead = resolve));
    const gated: SubscriptionsRepository = {
      ...repo,
      processEventOnce: (event, apply) =>
        repo.processEventOnce(event, (tx) =>
          apply(
            event.id === 'evt_older'
              ? {
                  ...tx,
                  async findByUserForUpdate(userId) {
                    const row = await tx.findByUserForUpdate(userId);
                    olderRead();
                    await held;
                    return row;
                  },
                }
              : tx,
          ),
        ),
    };
    // The signature check is Stripe's SDK (tested elsewhere); here the events are taken as sent.
    const stripe = { constructEvent: (raw: Buffer) => JSON.parse(raw.toString()) } as unknown as StripeGateway;
    const service = createPaymentsService({ repo: gated, stripe, webhookSecret: 'whsec_race' });
    const deliver = (event: object) => service.handleWebhook(Buffer.from(JSON.stringify(event)), 'signed');

    const now = Math.floor(t.clock.now().getTime() / 1000);
    const periodEnd = now + 30 * 86_400;
    const metadata = { user_id: user.id, tier: 'premium', billing_cycle: 'monthly' };
    const subscription = `sub_race_${user.id}`;
    const older = deliver({
      id: 'evt_older',
      type: 'invoice.paid',
      created: now - 5,
      data: {
        object: {
          customer: 'cus_race',
          parent: { subscription_details: { subscription, metadata } },
          lines: { data: [{ period: { end: periodEnd } }] },
        },
      },
    });
    await olderHasRead;
    let newerDone = false;
    const newer = deliver({
      id: 'evt_newer',
      type: 'customer.subscription.deleted',
      created: now,
      data: {
        object: {
          id: subscription,
          customer: 'cus_race',
          status: 'canceled',
          metadata,
          ended_at: now,
          cancel_at_period_end: false,
          items: { data: [{ current_period_end: periodEnd }] },
        },
      },
    }).finally(() => (newerDone = true));
    // The older one goes on once the newer one has either been applied (it read "none" too and
    // wrote its deletion: the race) or waits for the older one. PGlite runs one transaction at a
    // time, so there the newer one always waits; PostgreSQL shows its wait as an ungranted lock.
    if (testDbKind === 'postgres') {
      const waiting = () =>
        countOf(t.database.db, sql`select count(*)::int n from pg_locks where locktype = 'advisory' and not granted`);
      while (!newerDone && (await waiting()) === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    release();
    await Promise.all([older, newer]);

    const row = await repo.findByUser(user.id);
    expect(row?.stripeSubscriptionId).toBe(subscription);
    expect(row?.status).toBe('canceled');
    expect(row?.lastEventAt?.getTime()).toBe(now * 1000);
    // The user is not given the month the deletion ended.
    const view = await t.app.inject({ method: 'GET', url: '/api/subscription', headers: { cookie } });
    expect(view.json()).toMatchObject({ status: 'canceled', tier: 'free' });
  });
});
