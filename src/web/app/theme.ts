import { useSyncExternalStore } from 'react';

/**
 * The spec reads the default theme two ways (auto in the provider, purple in the customizer);
 * Eyevu uses purple everywhere, including public/theme-init.js which applies it before first paint.
 */
export const THEMES = ['light', 'dark', 'auto', 'purple', 'blue', 'green', 'orange'] as const;
export type Theme = (typeof THEMES)[number];
export const DEFAULT_THEME: Theme = 'purple';
export const THEME_STORAGE_KEY = 'eyevu-theme';
export const THEME_LABELS: Record<Theme, string> = {
  light: 'Light',
  dark: 'Dark',
  auto: 'Auto',
  purple: 'Purple',
  blue: 'Blue',
  green: 'Green',
  orange: 'Orange',
};

/**
 * The browser/installed-app bar colour per theme (<meta name="theme-color">): the theme's primary
 * colour, or the surface colour for light and dark. public/theme-init.js holds the same table.
 */
export const THEME_COLORS: Record<Exclude<Theme, 'auto'>, string> = {
  light: '#ffffff',
  dark: '#1a1a22',
  purple: '#6d28d9',
  blue: '#1d4ed8',
  green: '#137238',
  orange: '#b23c0b',
};

const isTheme = (v: unknown): v is Theme => typeof v === 'string' && (THEMES as readonly string[]).includes(v);

function readStored(): Theme {
  try {
    const v = localStorage.getItem(THEME_STORAGE_KEY);
    return isTheme(v) ? v : DEFAULT_THEME;
  } catch {
    return DEFAULT_THEME;
  }
}

let theme: Theme = typeof window === 'undefined' ? DEFAULT_THEME : readStored();
const listeners = new Set<() => void>();
const darkQuery = () => window.matchMedia?.('(prefers-color-scheme: dark)');

export function applyTheme(t: Theme) {
  const root = document.documentElement;
  root.dataset.theme = t;
  const dark = t === 'dark' || (t === 'auto' && !!darkQuery()?.matches);
  root.classList.toggle('dark', dark);
  const color = THEME_COLORS[t === 'auto' ? (dark ? 'dark' : 'light') : t];
  document.querySelector('meta[name="theme-color"]')?.setAttribute('content', color);
}

export function setTheme(t: Theme) {
  theme = t;
  try {
    localStorage.setItem(THEME_STORAGE_KEY, t);
  } catch {
    // Private mode: the theme still applies for this visit.
  }
  applyTheme(t);
  listeners.forEach((l) => l());
}

/**
 * 'auto' follows the system setting live, not only at load; and a theme chosen in another tab of
 * this browser applies here too (the choice is stored per browser), where it waited for a reload.
 */
export function watchSystemTheme(): () => void {
  const q = darkQuery();
  const onChange = () => theme === 'auto' && applyTheme('auto');
  q?.addEventListener('change', onChange);
  const onStorage = (event: StorageEvent) => {
    if (event.key !== THEME_STORAGE_KEY && event.key !== null) return;
    const next = readStored();
    if (next === theme) return;
    theme = next;
    applyTheme(next);
    listeners.forEach((l) => l());
  };
  window.addEventListener('storage', onStorage);
  return () => {
    q?.removeEventListener('change', onChange);
    window.removeEventListener('storage', onStorage);
  };
}

export function useTheme(): [Theme, (t: Theme) => void] {
  const value = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => theme,
  );
  return [value, setTheme];
}
