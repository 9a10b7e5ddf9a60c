import { hashPassword, verifyPassword } from './password';

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
});
