import { eq } from 'drizzle-orm';
import { sessions } from '../../db/schema';
import { hashToken } from '../../lib/tokens';
import { createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';
import { createAuthRepository } from './auth.repository';
import { createAuthService } from './auth.service';
import { hashPassword } from './password';

/**
 * A password reset signs out every session. A sign-in with the old password that was already
 * checking it when the reset landed must not come out of it with a session: whoever knew the old
 * password (the reason for the reset) would keep the account for 30 days.
 */
describe(`a sign-in racing a password reset (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('attack: a login that read the old password hash before the reset gets no session', async () => {
    const { user, body } = await signUp(t.app, { password: 'old-secret' });
    const forgot = await t.app.inject({
      method: 'POST',
      url: '/api/auth/forgot-password',
      payload: { email: body.email },
    });
    const resetToken = forgot.json().resetToken as string;
    expect(resetToken).toBeTruthy();

    const repo = createAuthRepository(t.database.db);
    const newHash = await hashPassword('new-secret');
    // The owner's reset commits while the attacker's login is between reading the account (the
    // old hash, which it then verifies) and starting its session.
    const racing = {
      ...repo,
      async findUserByEmail(email: string) {
        const row = await repo.findUserByEmail(email);
        expect(await repo.consumeResetAndSetPassword(hashToken(resetToken), newHash)).toBe(user.id);
        return row;
      },
    };
    const service = createAuthService({
      repo: racing,
      config: t.config,
      onUserCreated: [],
      log: { error: () => undefined, warn: () => undefined },
      sessionCache: { evict: async () => undefined, evictUser: async () => undefined },
    });

    await expect(service.login(body.email, 'old-secret')).rejects.toMatchObject({ statusCode: 401 });
    expect(await t.database.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(0);

    // The new password signs in as usual.
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: body.email, password: 'new-secret' },
    });
    expect(ok.statusCode).toBe(200);
    expect(await t.database.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(1);
  });
});
