/**
 * Debian's Chromium and the flags every headless run here needs (no sandbox as root, no GPU, and
 * nothing that reaches the network on its own). Shared by Playwright, the benchmarks and the
 * Lighthouse scripts.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
