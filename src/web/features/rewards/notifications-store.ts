import { NOTIFICATIONS_KEPT, type RewardType } from '@domain/rewards';
import { useSyncExternalStore } from 'react';
import { dismissAllToasts, toast } from '../../lib/toast';

export interface AppNotification {
  id: number;
  type: RewardType | 'info';
  message: string;
  timestamp: number;
}

export interface RewardPopupData {
  type: RewardType;
  points: number;
  message: string;
}

/** Newest first, at most NOTIFICATIONS_KEPT: the notifications kept on this device. */
let notifications: readonly AppNotification[] = [];
let nextId = 1;
const listeners = new Set<() => void>();

/** Keeps a notification (the latest 5) and shows it in the toast's notification lane. */
export function notify(type: AppNotification['type'], message: string): AppNotification {
  const n: AppNotification = { id: nextId++, type, message, timestamp: Date.now() };
  notifications = [n, ...notifications].slice(0, NOTIFICATIONS_KEPT);
  listeners.forEach((l) => l());
  toast({ lane: 'notification', title: message });
  return n;
}

/** Shows the reward popup ('+N pts' when it paid points, then its message). */
export function showReward({ points, message }: RewardPopupData) {
  toast({ lane: 'reward', title: points > 0 ? `+${points} pts` : undefined, description: message });
}

/** Test helper: forget everything. */
export function resetNotifications() {
  notifications = [];
  listeners.forEach((l) => l());
  dismissAllToasts();
}

export function useNotifications(): readonly AppNotification[] {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => notifications,
  );
}
