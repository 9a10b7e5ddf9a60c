import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config';

/**
 * `npm run test:hardening`: every hardening test, quick and long, one file at a time (so the load
 * figures are not disturbed by other suites). scripts/hardening.mjs prints the figures as a table.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['src/server/hardening/**/*.test.ts'],
    exclude: [...configDefaults.exclude],
    fileParallelism: false,
    maxWorkers: 1,
    testTimeout: 900_000,
  },
});
