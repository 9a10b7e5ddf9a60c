import type { ActivateResponse, AppStatus } from '@contract/app-status';
import type { RewardsService } from '../rewards/index';
import type { AppStatusRepository, AppStatusRow } from './app-status.repository';

const INACTIVE: AppStatus = { isActive: false, isMonitoring: false, lastActivity: null, activeSince: null };

export function toAppStatus(row: AppStatusRow | undefined): AppStatus {
  if (!row) return INACTIVE;
  return {
    isActive: row.isActive,
    isMonitoring: row.isMonitoring,
    lastActivity: row.lastActivity?.toISOString() ?? null,
    activeSince: row.activeSince?.toISOString() ?? null,
  };
}

/**
 * inactive -> active via activate (sets activeSince and lastActivity, and the
 * activation reward once per day of the user's stored zone); active -> inactive via deactivate; while active the
 * client's heartbeat refreshes lastActivity every 30 s.
 */
export function createAppStatusService(deps: { repo: AppStatusRepository; rewards: RewardsService; now?: () => Date }) {
  const { repo, rewards, now = () => new Date() } = deps;
  return {
    async get(userId: string): Promise<AppStatus> {
      return toAppStatus(await repo.find(userId));
    },
    async activate(userId: string): Promise<ActivateResponse> {
      const at = now();
      const current = await repo.find(userId);
      // Activating twice keeps the original activeSince.
      const activeSince = current?.isActive && current.activeSince ? current.activeSince : at;
      const row = await repo.upsert(userId, { isActive: true, isMonitoring: true, activeSince, lastActivity: at });
      const reward = await rewards.recordActivation(userId);
      return {
        status: toAppStatus(row),
        points: reward.points,
        message: reward.message,
        newAchievements: reward.newAchievements,
      };
    },
    async deactivate(userId: string): Promise<AppStatus> {
      const row = await repo.upsert(userId, { isActive: false, isMonitoring: false, activeSince: null });
      return toAppStatus(row);
    },
    async heartbeat(userId: string): Promise<AppStatus> {
      const current = await repo.find(userId);
      if (!current?.isActive) return toAppStatus(current);
      return toAppStatus(await repo.touch(userId, now()));
    },
  };
}
