import { useSyncExternalStore } from 'react';

/**
 * The app's one toast system. A toast shows in a lane; each lane shows one toast at a time, and a
 * newer toast replaces the shown one with its own full time. Lanes and their times: messages at
 * the top (5 s unless the caller says otherwise), the latest notification at the bottom (3 s) and
 * the reward popup in the middle (2.5 s).
 */
export const TOAST_LANE_MS = { message: 5000, notification: 3000, reward: 2500 } as const;
export type ToastLane = keyof typeof TOAST_LANE_MS;

export interface Toast {
  id: number;
  lane: ToastLane;
  /** The headline; the reward popup has none when a reward paid no points. */
  title?: string;
  description?: string;
  variant?: 'default' | 'destructive' | 'success';
  /** Milliseconds on screen; the lane's time when absent. */
  duration?: number;
}

export type ShownToasts = Readonly<Record<ToastLane, Toast | null>>;

const NONE: ShownToasts = { message: null, notification: null, reward: null };
let shown: ShownToasts = NONE;
let nextId = 1;
const timers: Partial<Record<ToastLane, ReturnType<typeof setTimeout>>> = {};
const listeners = new Set<() => void>();
const show = (lane: ToastLane, t: Toast | null) => {
  shown = { ...shown, [lane]: t };
  listeners.forEach((l) => l());
};

/** Shows a toast (in the message lane unless told otherwise) and answers its id. */
export function toast({ lane = 'message', ...t }: Omit<Toast, 'id' | 'lane'> & { lane?: ToastLane }): number {
  clearTimeout(timers[lane]);
  const id = nextId++;
  show(lane, { ...t, id, lane });
  timers[lane] = setTimeout(() => dismissToast(id, lane), t.duration ?? TOAST_LANE_MS[lane]);
  return id;
}

/** Hides the lane's toast: any, or only the one with this id. */
export function dismissToast(id?: number, lane: ToastLane = 'message') {
  const current = shown[lane];
  if (!current || (id !== undefined && current.id !== id)) return;
  clearTimeout(timers[lane]);
  show(lane, null);
}

/** Test helper: every lane empty. */
export function dismissAllToasts() {
  for (const lane of Object.keys(TOAST_LANE_MS) as ToastLane[]) dismissToast(undefined, lane);
}

export function useToasts(): ShownToasts {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => shown,
  );
}
