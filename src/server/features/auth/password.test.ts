import { vi } from 'vitest';
import { getDummyHash, hashPassword, verifyPassword } from './password';

// The test set-up swaps in a cheap cost for the other suites; this file checks the real one.
vi.unmock('./password');

describe('password hashing', () => {
  it('stores scrypt at OWASP parameters with a random salt and verifies only the right password', async () => {
    const a = await hashPassword('secret1');
    const b = await hashPassword('secret1');
    expect(a).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('secret1', a)).toBe(true);
    expect(await verifyPassword('secret2', a)).toBe(false);
    expect(await verifyPassword('secret1', 'garbage')).toBe(false);
  });

  it('makes the unknown-email dummy at the same cost as a real hash', async () => {
    expect(await getDummyHash()).toMatch(/^scrypt\$131072\$8\$1\$/);
  });
});
