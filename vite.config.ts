import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const r = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: {
    alias: {
      '@domain': r('./src/domain'),
      '@contract': r('./src/contract'),
      '@web': r('./src/web'),
    },
  },
  build: { outDir: 'dist/web', emptyOutDir: true, sourcemap: false },
  server: { proxy: { '/api': 'http://localhost:5000' } },
  // Stripe's publishable key is the only VITE_ variable; without it checkout shows its fallback.
  envPrefix: 'VITE_',
});
