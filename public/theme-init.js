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
})();
