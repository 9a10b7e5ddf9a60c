import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Each feature folder has one front door, its index.ts (or index.tsx); code outside a feature imports only
// that, so a feature's files can change without breaking its neighbours. Tests may reach inside.
function frontDoorZones(root) {
  const entries = (dir) => readdirSync(dir, { withFileTypes: true });
  // Everything in src except the feature itself: the siblings of each folder on the way down to it.
  const outside = (feature) => {
    const parts = `${root}/${feature}`.split('/');
    const targets = [];
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      for (const e of entries(dir)) if (e.name !== parts[i]) targets.push(`./${dir}/${e.name}`);
    }
    return targets;
  };
  return entries(root)
    .filter((d) => d.isDirectory())
    .map(({ name }) => ({
      target: outside(name),
      from: `./${root}/${name}`,
      except: ['./index.ts', './index.tsx'],
      message: `Import ${root}/${name} through its front door, ${root}/${name}/index.ts.`,
    }));
}

const TEST_FILES = [
  '**/*.test.ts',
  '**/*.test.tsx',
  'src/server/test/**',
  'src/server/hardening/**',
  'src/web/test/**',
];

export default tseslint.config(
  {
    ignores: [
      '.eyv-scratch',
      'dist',
      'node_modules',
      'coverage',
      '.tmp',
      'test-results',
      'playwright-report',
      'public',
      'src/server/db/migrations',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
  {
    // Imports flow one way: web -> contract -> domain, server -> contract -> domain.
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            '**/server/**',
            '**/web/**',
            '**/contract/**',
            'node:*',
            'react',
            'fastify',
            'sharp',
            'drizzle-orm*',
          ],
        },
      ],
    },
  },
  {
    files: ['src/contract/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/server/**', '**/web/**'] }] },
  },
  {
    files: ['src/web/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/server/**'] }] },
  },
  {
    files: ['src/server/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/web/**'] }] },
  },
  {
    files: ['scripts/**/*.mjs', 'public/**/*.js'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    ignores: TEST_FILES,
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        { zones: [...frontDoorZones('src/server/features'), ...frontDoorZones('src/web/features')] },
      ],
    },
  },
);
