import '@testing-library/jest-dom/vitest';
import { vi } from 'vitest';

/**
 * Tests hash passwords with scrypt at a small cost: at OWASP's N=2^17 each hash is ~0.4 s of CPU
 * and the API suites register and sign in hundreds of times. Verification reads the cost from the
 * stored hash, so it is the same code; `password.test.ts` checks the real parameters.
 */
vi.mock('./server/features/auth/password', async (importOriginal) => {
  const real = await importOriginal<typeof import('./server/features/auth/password')>();
  const TEST_COST = { N: 2 ** 12, r: 8, p: 1 };
  let dummy: Promise<string> | undefined;
  return {
    ...real,
    hashPassword: (password: string) => real.hashPassword(password, TEST_COST),
    getDummyHash: () => (dummy ??= real.hashPassword('not-a-password', TEST_COST)),
  };
});
