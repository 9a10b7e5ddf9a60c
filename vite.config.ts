import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

const r = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  plugins: [
    react(),
    tailwindcss(),
    // Installable app + offline shell (ARCHITECTURE.md, 'PWA'). The update is the user's choice
    // ('prompt'): src/web/app/pwa/update-prompt.tsx shows 'A new version of Eyevu is available'.
    VitePWA({
      registerType: 'prompt',
      injectRegister: false,
      includeAssets: ['favicon.svg', 'theme-init.js', 'icons/apple-touch-icon.png'],
      manifest: {
        id: '/',
        name: 'Eyevu',
        short_name: 'Eyevu',
        description: 'Eyevu shows your own photos while ads play, with games and rewards.',
        start_url: '/',
        scope: '/',
        display: 'standalone',
        orientation: 'portrait',
        background_color: '#f6f3fc',
        theme_color: '#6d28d9',
        icons: [
          { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
          { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
          { src: '/icons/maskable-192.png', sizes: '192x192', type: 'image/png', purpose: 'maskable' },
          { src: '/icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      workbox: {
        // The app shell: every built asset is precached; navigations fall back to index.html.
        globPatterns: ['**/*.{js,css,html,svg,png,webmanifest}'],
        navigateFallback: '/index.html',
        navigateFallbackDenylist: [/^\/api\//, /^\/healthz/, /^\/readyz/],
        cleanupOutdatedCaches: true,
        // Only thumbnails (and small thumbnails) already seen are cached at run time; no other /api answer is ever stored.
        runtimeCaching: [
          {
            urlPattern: ({ url, sameOrigin }) =>
              sameOrigin && /^\/api\/photos\/[^/]+\/(?:thumbnail|small)$/.test(url.pathname),
            handler: 'CacheFirst',
            options: {
              cacheName: 'eyevu-thumbnails',
              expiration: { maxEntries: 500, maxAgeSeconds: 30 * 24 * 60 * 60 },
              cacheableResponse: { statuses: [200] },
            },
          },
        ],
      },
    }),
  ],
  resolve: {
    alias: {
      '@domain': r('./src/domain'),
      '@contract': r('./src/contract'),
      '@web': r('./src/web'),
    },
  },
  // The manifest (dist/web/.vite/manifest.json) tells the server which chunks a screen needs, so the
  // page for that path preloads them (src/server/http/web-pages.ts).
  // One stylesheet for the whole app (Tailwind), never a lazy screen's dependency: the server puts
  // it inside the page (web-pages.ts), and as a chunk's dependency Vite would link and download it
  // again when that screen loads (it looks only for a <link> to it).
  build: {
    outDir: 'dist/web',
    emptyOutDir: true,
    sourcemap: false,
    manifest: true,
    cssCodeSplit: false,
    // The small modules the first-load screens (dashboard, gallery, pricing) share with the entry
    // and each other, in one chunk: split automatically they came as 6-10 files of 0.1-9 KB per first
    // load (each a request on a phone's link and a module to fetch, compile and link), and fewer
    // files measured better than the same code in more (bench/README.md, `lh7`). Radix, zod and the
    // screens' own code stay out: only these packages and these small app modules are captured.
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            {
              name: 'common',
              minShareCount: 2,
              test: /node_modules[\\/](lucide-react|clsx|tailwind-merge|wouter|@tanstack[\\/](react-query|query-core))[\\/]|src[\\/]web[\\/](components[\\/]ui[\\/](card|page-header|progress-bar|button|spinner)|lib[\\/](cn|photo-category|api|toast)|features[\\/][^\\/]+[\\/][^\\/]*-query)\.tsx?$/,
            },
          ],
        },
      },
    },
  },
  // `npm run dev` (scripts/dev.mjs): the API runs on PORT (default 5000) on loopback; 127.0.0.1 rather than
  // 'localhost', which Node may resolve to ::1 where the API is not listening. changeOrigin stays false (the
  // string shorthand turns it on): the API refuses a POST whose Origin is not its Host, so the browser's
  // Host must reach it unchanged.
  server: {
    proxy: { '/api': { target: `http://127.0.0.1:${process.env.PORT ?? 5000}`, changeOrigin: false } },
  },
  // Stripe's publishable key is the only VITE_ variable; without it checkout shows its fallback.
  envPrefix: 'VITE_',
});
