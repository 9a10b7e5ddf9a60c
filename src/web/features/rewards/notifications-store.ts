import { NOTIFICATIONS_KEPT, type RewardType } from '@domain/rewards';
import { useSyncExternalStore } from 'react';

/** Spec section 3: Notification (local) and Reward. Timings from section 9. */
export const REWARD_POPUP_MS = 2500;
export const NOTIFICATION_TOAST_MS = 3000;

export interface AppNotification {
  id: number;
  type: RewardType | 'info';
  message: string;
  timestamp: number;
}

export interface RewardPopupData {
  id: number;
  type: RewardType;
  points: number;
  message: string;
}

interface State {
  /** Newest first, at most NOTIFICATIONS_KEPT. */
  notifications: AppNotification[];
  /** The notification the toast shows now (one at a time), or null. */
  current: AppNotification | null;
  reward: RewardPopupData | null;
}

let state: State = { notifications: [], current: null, reward: null };
let nextId = 1;
let toastTimer: ReturnType<typeof setTimeout> | undefined;
let rewardTimer: ReturnType<typeof setTimeout> | undefined;
const listeners = new Set<() => void>();
const set = (patch: Partial<State>) => {
  state = { ...state, ...patch };
  listeners.forEach((l) => l());
};

/** Adds a notification (keeping the latest 5) and shows it in the toast for 3 s. */
export function notify(type: AppNotification['type'], message: string): AppNotification {
  const n: AppNotification = { id: nextId++, type, message, timestamp: Date.now() };
  clearTimeout(toastTimer);
  set({ notifications: [n, ...state.notifications].slice(0, NOTIFICATIONS_KEPT), current: n });
  toastTimer = setTimeout(() => dismissNotification(n.id), NOTIFICATION_TOAST_MS);
  return n;
}

export function dismissNotification(id?: number) {
  if (!state.current || (id !== undefined && state.current.id !== id)) return;
  clearTimeout(toastTimer);
  set({ current: null });
}

/** Shows the reward popup for 2.5 s (a newer reward replaces the shown one). */
export function showReward(reward: Omit<RewardPopupData, 'id'>) {
  clearTimeout(rewardTimer);
  const r = { ...reward, id: nextId++ };
  set({ reward: r });
  rewardTimer = setTimeout(() => {
    if (state.reward?.id === r.id) set({ reward: null });
  }, REWARD_POPUP_MS);
}

export function dismissReward() {
  clearTimeout(rewardTimer);
  set({ reward: null });
}

/** Test helper: forget everything. */
export function resetNotifications() {
  clearTimeout(toastTimer);
  clearTimeout(rewardTimer);
  set({ notifications: [], current: null, reward: null });
}

export function useNotifications(): State {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => state,
  );
}
