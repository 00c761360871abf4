// Lint: typescript-eslint's recommended rules, plus the layering rule of DESIGN.md section 1
// (imports only point down cli → policy → primitives → runtime) enforced with no-restricted-imports.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const layer = (files, forbidden) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: forbidden.map((dir) => ({
          group: [`**/${dir}/*`, `../${dir}/*`, `../../${dir}/*`],
          message: `imports only point down cli → policy → primitives → runtime`,
        })),
        paths: ['ink', 'react'].map((name) => ({ name, message: 'ink/react belong to cli/ only' })),
      },
    ],
  },
});

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'test/fixtures/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // bin/ and config files run on Node.
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly', console: 'readonly' } },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  layer(['runtime/**/*.ts'], ['cli', 'policy', 'primitives']),
  layer(['primitives/**/*.ts'], ['cli', 'policy']),
  layer(['policy/**/*.ts'], ['cli']),
);
