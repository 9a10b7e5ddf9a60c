import {
  DEFAULT_UPGRADE_MODAL_PLAN,
  formatPricePerCycle,
  isBillingCycle,
  isSubscriptionActive,
  isTier,
  planFor,
  PLANS,
  priceFor,
  priceAfterTrial,
  TRIAL_LABEL,
  TRIAL_TIER,
  trialEndDate,
  UPGRADE_MODAL_PLANS,
  yearlySavingsCents,
  yearlySavingsLabel,
} from './plans';

describe('PLANS', () => {
  it('has the four tiers with spec prices, premium popular', () => {
    expect(PLANS.map((p) => [p.id, p.monthlyPrice, p.yearlyPrice, p.popular])).toEqual([
      ['free', 0, 0, false],
      ['basic', 499, 4790, false],
      ['premium', 999, 9590, true],
      ['ultimate', 1999, 19190, false],
    ]);
    for (const plan of PLANS) {
      expect(plan.name.length).toBeGreaterThan(0);
      expect(plan.features.length).toBeGreaterThan(0);
    }
  });

  it('priceFor picks the cycle price', () => {
    expect(priceFor('basic', 'monthly')).toBe(499);
    expect(priceFor('premium', 'yearly')).toBe(9590);
    expect(priceFor('free', 'yearly')).toBe(0);
    expect(planFor('ultimate').name).toBe('Ultimate');
  });

  it('yearly savings are 12 x monthly - yearly', () => {
    expect(PLANS.map(yearlySavingsCents)).toEqual([0, 1198, 2398, 4798]);
    expect(yearlySavingsLabel(planFor('basic'))).toBe('Save $11.98 annually');
    expect(yearlySavingsLabel(planFor('ultimate'))).toBe('Save $47.98 annually');
    expect(yearlySavingsLabel({ monthlyPrice: 1000, yearlyPrice: 10_000 })).toBe('Save $20 annually');
    expect(yearlySavingsLabel(planFor('free'))).toBeNull();
  });

  it('formats a price per cycle', () => {
    expect(formatPricePerCycle(499, 'monthly')).toBe('$4.99/month');
    expect(formatPricePerCycle(4790, 'yearly')).toBe('$47.90/year');
  });

  it('guards untrusted tier and cycle strings', () => {
    expect(isTier('premium')).toBe(true);
    expect(isTier('gold')).toBe(false);
    expect(isTier(undefined)).toBe(false);
    expect(isBillingCycle('yearly')).toBe(true);
    expect(isBillingCycle('weekly')).toBe(false);
  });
});

describe('upgrade modal', () => {
  it('offers monthly 499 and yearly 4999, monthly by default', () => {
    expect(UPGRADE_MODAL_PLANS.map((p) => [p.id, p.price, p.note, p.tag])).toEqual([
      ['monthly', 499, 'Unlimited ad skipping', 'Popular'],
      ['yearly', 4999, 'Save 17% annually', null],
    ]);
    expect(UPGRADE_MODAL_PLANS.map((p) => p.priceLabel)).toEqual(['$4.99/month', '$49.99/year']);
    expect(DEFAULT_UPGRADE_MODAL_PLAN).toBe('monthly');
    expect(TRIAL_LABEL).toBe('7-day free trial • Cancel anytime');
  });

  it('a trial of either cycle lasts 7 days; premium then costs the catalogue price at checkout', () => {
    const now = new Date('2024-01-01T00:00:00Z');
    expect(trialEndDate(now).toISOString()).toBe('2024-01-08T00:00:00.000Z');
    expect(TRIAL_TIER).toBe('premium');
    expect([priceAfterTrial('monthly'), priceAfterTrial('yearly')]).toEqual([999, 9590]);
  });
});

describe('isSubscriptionActive', () => {
  const now = new Date('2024-05-10T12:00:00Z');
  it('needs status active and an end date in the future', () => {
    expect(isSubscriptionActive({ status: 'active', endDate: '2024-06-01T00:00:00Z' }, now)).toBe(true);
    expect(isSubscriptionActive({ status: 'active', endDate: new Date('2024-05-01') }, now)).toBe(false);
    expect(isSubscriptionActive({ status: 'active', endDate: now }, now)).toBe(false);
    expect(isSubscriptionActive({ status: 'canceled', endDate: '2024-06-01T00:00:00Z' }, now)).toBe(false);
  });

  it('treats a missing end date as open-ended and a bad one as inactive', () => {
    expect(isSubscriptionActive({ status: 'active', endDate: null }, now)).toBe(true);
    expect(isSubscriptionActive({ status: 'active' }, now)).toBe(true);
    expect(isSubscriptionActive({ status: 'active', endDate: 'soon' }, now)).toBe(false);
    expect(isSubscriptionActive(null, now)).toBe(false);
  });
});
