(function () {
  var themes = ['light', 'dark', 'auto', 'purple', 'blue', 'green', 'orange'];
  var stored = null;
  try {
    stored = localStorage.getItem('eyevu-theme');
  } catch (e) {}
  var theme = themes.indexOf(stored) >= 0 ? stored : 'purple';
  var dark = theme === 'dark' || (theme === 'auto' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  var root = document.documentElement;
  root.dataset.theme = theme;
  root.classList.toggle('dark', dark);
  // Same table as THEME_COLORS in src/web/app/theme.ts.
  var colors = {
    light: '#ffffff',
    dark: '#1a1a22',
    purple: '#6d28d9',
    blue: '#1d4ed8',
    green: '#137238',
    orange: '#b23c0b',
  };
  var meta = document.querySelector('meta[name="theme-color"]');
  if (meta) meta.setAttribute('content', colors[theme === 'auto' ? (dark ? 'dark' : 'light') : theme]);
})();
