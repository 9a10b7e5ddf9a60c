import { Check } from 'lucide-react';
import { THEME_LABELS, THEMES, useTheme, type Theme } from '../../app/theme';

/** Swatch colours shown in the picker (the real colours live in styles.css). */
const SWATCH: Record<Theme, string> = {
  light: 'linear-gradient(135deg,#ffffff 50%,#1f5ae0 50%)',
  dark: 'linear-gradient(135deg,#1a1a22 50%,#8ab4ff 50%)',
  auto: 'linear-gradient(135deg,#ffffff 50%,#1a1a22 50%)',
  purple: '#6d28d9',
  blue: '#1d4ed8',
  green: '#137238',
  orange: '#b23c0b',
};

/** Settings "Theme Customizer": the same store as the status bar's picker (src/web/app/theme.ts). */
export function ThemeCustomizer() {
  const [theme, setTheme] = useTheme();
  return (
    <fieldset className="grid grid-cols-4 gap-2">
      <legend className="sr-only">Theme</legend>
      {THEMES.map((t) => (
        <label
          key={t}
          className="flex min-h-11 cursor-pointer flex-col items-center gap-1 rounded-xl border border-border p-2 text-xs font-medium has-[:checked]:border-primary has-[:checked]:bg-primary-soft has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-primary"
        >
          <input
            type="radio"
            name="theme"
            value={t}
            checked={theme === t}
            onChange={() => setTheme(t)}
            className="sr-only"
          />
          <span
            className="grid size-8 place-items-center rounded-full border border-border"
            style={{ background: SWATCH[t] }}
            aria-hidden
          >
            {theme === t && <Check className="size-4 text-white drop-shadow" />}
          </span>
          {THEME_LABELS[t]}
        </label>
      ))}
    </fieldset>
  );
}
