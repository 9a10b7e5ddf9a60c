// @vitest-environment jsdom
import { DEFAULT_THEME, THEME_STORAGE_KEY, watchSystemTheme } from './theme';

describe('the theme across tabs', () => {
  afterEach(() => localStorage.clear());

  it("applies a theme another tab stored, and the default when that tab's storage is cleared", () => {
    const stop = watchSystemTheme();
    // What another tab's setTheme leaves behind: the stored value and a storage event here.
    localStorage.setItem(THEME_STORAGE_KEY, 'green');
    window.dispatchEvent(new StorageEvent('storage', { key: THEME_STORAGE_KEY, newValue: 'green' }));
    expect(document.documentElement.dataset.theme).toBe('green');
    expect(document.documentElement.classList.contains('dark')).toBe(false);

    localStorage.setItem(THEME_STORAGE_KEY, 'dark');
    window.dispatchEvent(new StorageEvent('storage', { key: THEME_STORAGE_KEY, newValue: 'dark' }));
    expect(document.documentElement.classList.contains('dark')).toBe(true);

    localStorage.clear();
    window.dispatchEvent(new StorageEvent('storage', { key: null }));
    expect(document.documentElement.dataset.theme).toBe(DEFAULT_THEME);

    stop();
    localStorage.setItem(THEME_STORAGE_KEY, 'blue');
    window.dispatchEvent(new StorageEvent('storage', { key: THEME_STORAGE_KEY, newValue: 'blue' }));
    expect(document.documentElement.dataset.theme).toBe(DEFAULT_THEME);
  });
});
