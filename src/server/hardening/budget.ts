import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** Requests in flight at once while a budget is spent. */
const AT_ONCE = 10;

/**
 * Sends requests `from`..`to - 1` (each given its number), AT_ONCE at a time, as a loop with several
 * connections would, and fails on the first answer that is not a 200.
 */
export async function spendAllOk(from: number, to: number, send: (n: number) => Promise<LightMyRequestResponse>) {
  for (let i = from; i < to; i += AT_ONCE) {
    const batch = Array.from({ length: Math.min(AT_ONCE, to - i) }, (_, j) => i + j);
    const answers = await Promise.all(batch.map(send));
    const bad = answers.find((res) => res.statusCode !== 200);
    if (bad) expect.fail(`requests ${i + 1}..: ${bad.statusCode} ${bad.body}`);
  }
}

/** A refusal by the limits table: 429 with a Retry-After. */
export function expectLimited(res: LightMyRequestResponse) {
  expect(res.statusCode).toBe(429);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
}
