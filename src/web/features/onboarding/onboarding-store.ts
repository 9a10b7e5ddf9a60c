import { useSyncExternalStore } from 'react';
import { holdToasts } from '../../lib/toast';

/** The guide's flags live in localStorage so it auto-opens once per browser, not once per visit. */
export const ONBOARDING_COMPLETED_KEY = 'eyevu-onboarding-completed';
export const ONBOARDING_SEEN_KEY = 'eyevu-onboarding-seen';
export const ONBOARDING_DELAY_MS = 1000;
export const STEP_TRANSITION_MS = 300;

function read(key: string): boolean {
  try {
    return localStorage.getItem(key) === 'true';
  } catch {
    return false;
  }
}
function write(key: string, value: boolean) {
  try {
    if (value) localStorage.setItem(key, 'true');
    else localStorage.removeItem(key);
  } catch {
    // Private mode: the flag lasts for this visit only.
  }
}

interface State {
  open: boolean;
  step: number;
  completed: boolean;
}

let state: State = {
  open: false,
  step: 0,
  completed: typeof window === 'undefined' ? false : read(ONBOARDING_COMPLETED_KEY),
};
const listeners = new Set<() => void>();

// Toasts wait while the guide is open (and during its first-run delay), so it is the one thing shown.
let releaseToasts: (() => void) | null = null;
function holdToastsWhile(guiding: boolean) {
  if (guiding && !releaseToasts) releaseToasts = holdToasts();
  if (!guiding && releaseToasts) {
    releaseToasts();
    releaseToasts = null;
  }
}

const set = (patch: Partial<State>) => {
  state = { ...state, ...patch };
  holdToastsWhile(state.open);
  listeners.forEach((l) => l());
};

export function openOnboarding(step = 0) {
  set({ open: true, step });
}
export function setOnboardingStep(step: number) {
  set({ step });
}
/** Complete or skip: sets the completed flag and closes. */
export function completeOnboarding() {
  write(ONBOARDING_COMPLETED_KEY, true);
  set({ open: false, completed: true });
}
/** Settings 'Reset Tutorial': clears both flags and reopens at step 1. */
export function resetOnboarding() {
  write(ONBOARDING_COMPLETED_KEY, false);
  write(ONBOARDING_SEEN_KEY, false);
  set({ open: true, step: 0, completed: false });
}

/**
 * This load's first-run opening: not decided yet, due at a time (the flag is already written), or
 * done. Kept outside the component: a remount before the second is up (React's StrictMode mounts
 * every effect twice in development) found the seen flag it had just written and never opened.
 */
let firstRun: number | 'undecided' | 'done' = 'undecided';

/**
 * First load: when the user has neither completed nor seen the guide, mark it seen at once and
 * open it after 1 s; `prepare` runs only then (the guide's code is loaded for this opening) and
 * returns its own cancel. Returns a cancel function (for unmount); a mount again before the opening
 * keeps its time.
 */
export function scheduleFirstRunOnboarding(prepare?: () => () => void): () => void {
  if (firstRun === 'undecided') {
    if (read(ONBOARDING_COMPLETED_KEY) || read(ONBOARDING_SEEN_KEY)) firstRun = 'done';
    else {
      write(ONBOARDING_SEEN_KEY, true);
      firstRun = Date.now() + ONBOARDING_DELAY_MS;
    }
  }
  if (firstRun === 'done') return () => {};
  holdToastsWhile(true);
  const cancelPrepare = prepare?.();
  const id = setTimeout(
    () => {
      firstRun = 'done';
      openOnboarding(0);
    },
    Math.max(0, firstRun - Date.now()),
  );
  return () => {
    clearTimeout(id);
    cancelPrepare?.();
    holdToastsWhile(state.open);
  };
}

/** Test helper: re-read flags and close. */
export function resetOnboardingState() {
  firstRun = 'undecided';
  set({ open: false, step: 0, completed: read(ONBOARDING_COMPLETED_KEY) });
}

/**
 * The guide completed or reset in another tab of this browser: Settings here offers Reset Tutorial
 * by the flag, so it follows (the storage event fires in the other tabs only).
 */
function onStorage(event: StorageEvent) {
  if (event.key !== null && event.key !== ONBOARDING_COMPLETED_KEY) return;
  const completed = read(ONBOARDING_COMPLETED_KEY);
  if (completed !== state.completed) set({ completed });
}

export function useOnboarding(): State {
  return useSyncExternalStore(
    (l) => {
      if (listeners.size === 0) window.addEventListener('storage', onStorage);
      listeners.add(l);
      return () => {
        listeners.delete(l);
        if (listeners.size === 0) window.removeEventListener('storage', onStorage);
      };
    },
    () => state,
  );
}
