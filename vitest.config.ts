import { configDefaults, defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const r = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: {
      '@domain': r('./src/domain'),
      '@contract': r('./src/contract'),
      '@web': r('./src/web'),
    },
  },
  test: {
    globals: true,
    // scripts/lib holds helpers only the model-building scripts use; their tests run with the rest.
    include: ['src/**/*.test.{ts,tsx}', 'scripts/lib/**/*.test.ts'],
    // The long hardening suite runs with `npm run test:hardening` (vitest.hardening.config.ts).
    // Races only PostgreSQL can run (a second connection holding a row lock; the embedded database
    // runs one transaction at a time) are in `*.pg.api.test.ts`, run by the PostgreSQL step only.
    exclude: [
      ...configDefaults.exclude,
      'src/**/*.long.test.ts',
      ...(process.env.EYEVU_TEST_DB === 'postgres' ? [] : ['src/**/*.pg.api.test.ts']),
    ],
    environment: 'node',
    // Component tests opt into jsdom with a per-file `// @vitest-environment jsdom` comment.
    setupFiles: ['./src/test-setup.ts'],
    // One migrated database per run (a PGlite dump, a PostgreSQL template) that test databases start from.
    globalSetup: ['./src/server/test/database-templates.ts'],
    // PGlite takes seconds to boot and password hashing is deliberately slow. The bounds catch hangs,
    // not slowness: a shared 2-core CI machine has run a minute-long setup into a 60 s bound.
    testTimeout: 120_000,
    hookTimeout: 240_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
