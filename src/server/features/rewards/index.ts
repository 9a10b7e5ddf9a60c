/** Public API of the rewards feature: its routes, and the ledger and service activities and app-status award through. */
export { rewardsRoutes } from './rewards.routes';
export { createLedger, type Ledger, type LedgerEntry } from './ledger';
export { createRewardsService, toAchievementView, type RewardsService } from './rewards.service';
