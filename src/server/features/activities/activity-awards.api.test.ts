import { adBreakIds, createTestApp, signUp, testDbKind, type TestApp } from '../../test/harness';
import { createLedger } from '../rewards/index';

/**
 * POST /api/activities records the row, its entries and the achievements it makes due in one
 * statement (ledger.recordEventWithAward), computed from the snapshot read before it: achievement
 * points that reach another threshold unlock that one too, in the same answer.
 */
describe(`activity awards in one statement (${testDbKind})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('the 5th ad unlocks Ad Skipper, whose points unlock Point Master, each once', async () => {
    const { cookie, user } = await signUp(t.app);
    // 440 points from elsewhere: 4 ads (9 each) bring 476, the 5th 485, Ad Skipper (+30) 515 >= 500.
    await createLedger(t.database.db).addEntries(user.id, [
      { source: 'test', sourceEventId: 'test:seed', points: 440 },
    ]);
    const adBreakId = adBreakIds(t.app);
    const post = async (label: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/activities',
        headers: { cookie, 'idempotency-key': await adBreakId(cookie, 'YouTube', label) },
        payload: { app: 'YouTube', adDuration: 30, gameData: { gameType: 'memory', score: 60, completed: true } },
      });
    for (let i = 1; i <= 4; i++) {
      const r = await post(`ad-${i}`);
      expect(r.statusCode).toBe(201);
      expect(r.json()).toMatchObject({ pointsAdded: 9, newAchievements: [] });
    }
    const fifth = await post('ad-5');
    expect(fifth.statusCode).toBe(201);
    expect(fifth.json().newAchievements.map((a: { id: string }) => a.id)).toEqual(['ad_skipper', 'point_master']);
    expect(fifth.json().pointsAdded).toBe(9 + 30 + 75);
    const again = await post('ad-5');
    expect(again.json()).toMatchObject({ recorded: false, pointsAdded: 0, newAchievements: [] });
    expect((await post('ad-6')).json()).toMatchObject({ pointsAdded: 9, newAchievements: [] });
    const rewards = (await t.app.inject({ method: 'GET', url: '/api/rewards', headers: { cookie } })).json();
    expect(rewards.totalPoints).toBe(440 + 6 * 9 + 30 + 75);
  });
});
