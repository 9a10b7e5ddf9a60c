import { useSyncExternalStore } from 'react';

/** Spec section 9: one toast at a time; 5 s unless the caller says otherwise. */
export const TOAST_DEFAULT_DURATION = 5000;

export interface Toast {
  id: number;
  title: string;
  description?: string;
  variant?: 'default' | 'destructive' | 'success';
  duration?: number;
}

let current: Toast | null = null;
let nextId = 1;
let timer: ReturnType<typeof setTimeout> | undefined;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

export function toast(t: Omit<Toast, 'id'>): number {
  clearTimeout(timer);
  current = { ...t, id: nextId++ };
  const id = current.id;
  timer = setTimeout(() => dismissToast(id), t.duration ?? TOAST_DEFAULT_DURATION);
  emit();
  return id;
}

export function dismissToast(id?: number) {
  if (!current || (id !== undefined && current.id !== id)) return;
  clearTimeout(timer);
  current = null;
  emit();
}

export function useCurrentToast(): Toast | null {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
  );
}
