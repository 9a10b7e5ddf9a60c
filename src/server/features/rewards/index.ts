/** Public API of the rewards feature for other server features (activities, app-status, photos). */
export { createLedger, streakFromDays, type Ledger, type LedgerEntry } from './ledger.js';
export { createRewardsService, toAchievementView, type RewardsService } from './rewards.service.js';
