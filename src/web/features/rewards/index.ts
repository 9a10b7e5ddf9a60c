// Points, stats, activities and the app status, plus what a signed-in screen shows of them.
export { activitiesQueryOptions, useActivities } from './activities-query';
export { ActivityList } from './activity-list';
export { announceActivity, announceReward } from './announce';
export { useAppActive, useAppStatus, useSetAppActive } from './app-status-query';
export { rewardsQueryOptions } from './rewards-query';
export { SignedInOverlays } from './signed-in-overlays';
export { statsQueryOptions, useStats } from './stats-query';
