// ESLint 9 flat config: a small, bug-oriented rule set, type-aware where it matters
// (floating and misused promises need the types, including those of kysely, pg and node:).
// Formatting is Biome's job (biome.json); no style rules here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // The client's openapi.ts is openapi-typescript's output, kept byte for byte as generated.
    ignores: [
      'node_modules/',
      'data/',
      'dist/',
      'coverage/',
      'test-output/',
      'bench/results/',
      '.scratch/',
      'clients/typescript/dist/',
      'clients/typescript/src/openapi.ts',
    ],
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.base, tseslint.configs.eslintRecommended],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Promises: a promise nobody awaits loses its errors and its ordering.
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's describe/it/test return promises the runner itself awaits.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/prefer-promise-reject-errors': 'error',
      'no-async-promise-executor': 'error',
      // Unused code (tsc's noUnusedLocals covers most of it; this also names the rule).
      'no-unused-vars': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      'no-unused-private-class-members': 'error',
      // Types that turn the checker off.
      '@typescript-eslint/no-explicit-any': 'error',
      // Equality and control flow.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-fallthrough': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      'no-self-compare': 'error',
      'no-unsafe-finally': 'error',
      'no-unreachable-loop': 'error',
      'no-empty': ['error', { allowEmptyCatch: true }],
      // Style, not bugs (some come with the recommended sets): off.
      'prefer-const': 'off',
      'prefer-rest-params': 'off',
      'prefer-spread': 'off',
      'no-regex-spaces': 'off',
    },
  },
  {
    // A migration sees the schema of its own time, not today's Database interface: Kysely's documented `Kysely<any>`.
    files: ['src/store/migrations.ts', 'src/store/migrations/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
