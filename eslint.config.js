// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { portholePlugin } from './scripts/lint/core-layers.js';

/** Node's built-in modules, with and without the `node:` prefix. */
const nodeBuiltins = [
  'assert',
  'async_hooks',
  'buffer',
  'child_process',
  'cluster',
  'crypto',
  'dgram',
  'dns',
  'events',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'module',
  'net',
  'os',
  'path',
  'perf_hooks',
  'process',
  'readline',
  'stream',
  'stream/promises',
  'string_decoder',
  'timers',
  'timers/promises',
  'tls',
  'tty',
  'url',
  'util',
  'v8',
  'vm',
  'worker_threads',
  'zlib',
];
const noNode = [{ group: ['node:*'], message: 'This layer runs without Node: no node:* imports.' }];
const noNodeBare = nodeBuiltins.map((name) => ({
  name,
  message: 'This layer runs without Node: no Node built-in modules.',
}));
const noElectron = {
  name: 'electron',
  message: 'Only electron/main and electron/preload may import electron.',
};

export default tseslint.config(
  {
    ignores: ['node_modules/', 'out/', 'dist/', 'release/', 'proto/gen/', 'coverage/', '.lab/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: globals.node,
    },
  },
  // ---- Layering -------------------------------------------------------------------
  {
    // shared: plain ECMAScript; imports nothing outside shared (tests may use vitest).
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron, ...noNodeBare],
          patterns: [
            ...noNode,
            {
              regex: '^(?!\\.{1,2}/|vitest$)',
              message: 'shared imports nothing: only relative modules inside shared.',
            },
            {
              group: [
                '**/electron/**',
                '**/renderer/**',
                '**/proto/**',
                '**/scripts/**',
                '**/test/**',
              ],
              message: 'shared must not reach into other layers.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['electron/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron],
          patterns: [
            {
              group: [
                '**/renderer/**',
                '**/electron/main/**',
                '**/electron/preload/**',
                '**/main/**',
                '**/preload/**',
              ],
              message: 'electron/core must not depend on the Electron shell or the renderer.',
            },
          ],
        },
      ],
    },
  },
  {
    // Inside the core: features stand on the base, and reach each other through index.ts.
    files: ['electron/core/**/*.ts'],
    plugins: { porthole: portholePlugin },
    rules: { 'porthole/core-layers': 'error' },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    languageOptions: { globals: globals.browser },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron, ...noNodeBare],
          patterns: [
            ...noNode,
            {
              group: ['**/electron/**', '**/proto/**', '**/scripts/**'],
              message: 'The renderer talks to the core only through shared/contract.',
            },
          ],
        },
      ],
    },
  },
);
