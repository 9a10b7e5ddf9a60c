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

/*
 * While something holds the toasts (the first-run Setup Guide), new toasts wait in `held`, and the
 * ones on screen go back to its front. After the last hold they play one after another, each when
 * the screen has no toast, so a new account meets one thing at a time: the guide, its welcome, then
 * the reward. A toast raised by what the user does next still shows at once.
 */
let holds = 0;
let held: Toast[] = [];

function display(t: Toast) {
  clearTimeout(timers[t.lane]);
  show(t.lane, t);
  timers[t.lane] = setTimeout(() => dismissToast(t.id, t.lane), t.duration ?? TOAST_LANE_MS[t.lane]);
}

function playHeld() {
  if (holds > 0 || Object.values(shown).some(Boolean)) return;
  const next = held.shift();
  if (next) display(next);
}

/** Shows a toast (in the message lane unless told otherwise) and answers its id. */
export function toast({ lane = 'message', ...t }: Omit<Toast, 'id' | 'lane'> & { lane?: ToastLane }): number {
  const next: Toast = { ...t, id: nextId++, lane };
  if (holds > 0) held.push(next);
  else display(next);
  return next.id;
}

/** Hides the lane's toast: any, or only the one with this id (also when it is still waiting). */
export function dismissToast(id?: number, lane: ToastLane = 'message') {
  if (id !== undefined) held = held.filter((t) => t.id !== id);
  const current = shown[lane];
  if (!current || (id !== undefined && current.id !== id)) return;
  clearTimeout(timers[lane]);
  show(lane, null);
  playHeld();
}

/** Holds every toast until the returned release is called (each release counts once). */
export function holdToasts(): () => void {
  if (holds++ === 0) {
    const onScreen = (Object.keys(TOAST_LANE_MS) as ToastLane[]).flatMap((lane) => (shown[lane] ? [shown[lane]] : []));
    for (const t of onScreen) {
      clearTimeout(timers[t.lane]);
      show(t.lane, null);
    }
    held = [...onScreen, ...held];
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holds--;
    playHeld();
  };
}

/*
 * A toast's seconds are meant to be seen. One raised while the page is hidden (an ad break that
 * ended while the user was in another tab or app: its reward popup) would spend them unseen, so
 * toasts wait while the page is hidden, and the ones on screen as it was hidden go back to wait
 * too; when it is shown again they play in turn, each with its full time.
 */
let hiddenHold: (() => void) | null = null;
function followVisibility() {
  if (document.visibilityState === 'hidden') {
    hiddenHold ??= holdToasts();
  } else if (hiddenHold) {
    const release = hiddenHold;
    hiddenHold = null;
    release();
  }
}
if (typeof document !== 'undefined') {
  document.addEventListener('visibilitychange', followVisibility);
  followVisibility();
}

/** Test helper: every lane empty, nothing waiting. */
export function dismissAllToasts() {
  held = [];
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
