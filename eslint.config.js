import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'coverage/', 'out/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      // One import statement per module (a type-only one beside it is fine).
      'no-duplicate-imports': ['error', { allowSeparateTypeImports: true }],
    },
  },
  {
    // The status page's scripts run in the browser, not in Node: only the browser's globals exist there.
    files: ['status/page/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'location',
          'fetch',
          'EventSource',
          'URL',
          'URLSearchParams',
          'Intl',
          'console',
          'setTimeout',
          'clearTimeout',
          'requestAnimationFrame',
          'cancelAnimationFrame',
          'ResizeObserver',
          'HTMLElement',
          'Event',
          'performance',
          'TextDecoderStream',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
);
