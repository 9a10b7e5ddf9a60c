import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeDouble, type StripeDouble } from '../features/payments/stripe-test-double';
import { createTestApp, signUp, type TestApp } from '../test/harness';
import { fuzzJson } from './fuzz-json';
import { jpeg, multipart, recordFigure, rng, stripeConfig } from './support';

/**
 * Bad input, the JSON half, quick version (500 requests; the long suite sends 3,000): generated
 * hostile requests across every endpoint in the route table (wrong types, missing/extra fields, huge strings, deep nesting, invalid UTF-8,
 * oversize bodies, wrong content types): no 5xx, every 4xx has a clear message, server stays up.
 * The long suite (fuzz.long.test.ts) runs the same generator with more requests and other seeds.
 */
export const QUICK_FUZZ_REQUESTS = 500;

let t: TestApp;
let stripe: StripeDouble;
let cookie: string;
let ownId: string;
beforeAll(async () => {
  stripe = await startStripeDouble();
  t = await createTestApp(stripeConfig(stripe.api));
  ({ cookie } = await signUp(t.app));
  const m = multipart([{ name: 'mine.jpg', bytes: await jpeg(7) }]);
  const up = await t.app.inject({
    method: 'POST',
    url: '/api/photos',
    headers: { cookie, ...m.headers },
    payload: m.payload,
  });
  ownId = up.json().results[0].photo.id;
});
afterAll(async () => {
  await t?.close();
  await stripe?.close();
});

describe('JSON fuzzer (seeded)', () => {
  it(`${QUICK_FUZZ_REQUESTS} generated requests: 0 x 5xx, every 4xx with a message, server still up`, async () => {
    const out = await fuzzJson(t.app, { r: rng(20240601), requests: QUICK_FUZZ_REQUESTS, cookie, ownId });
    await recordFigure('2 bad input', 'JSON fuzz requests (quick)', out.requests);
    if (process.env.FUZZ_DEBUG) console.log(out.byStatus);
    expect(out.failures.slice(0, 20)).toEqual([]);
    expect(out.requests).toBe(QUICK_FUZZ_REQUESTS);
    // The mix is real: valid requests reached the services and hostile ones were refused.
    expect(Object.keys(out.byStatus).filter((s) => s.startsWith('2')).length).toBeGreaterThan(0);
    expect(out.byStatus['400']).toBeGreaterThan(100);
    expect(out.byStatus['413']).toBeGreaterThan(0);
    expect(out.byStatus['415']).toBeGreaterThan(0);
    expect((await t.app.inject({ url: '/healthz' })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/auth/user', headers: { cookie } })).statusCode).toBe(200);
  }, 120_000);
});
