// Lint: typescript-eslint's recommended rules, plus the layering rule of docs/architecture.md
// (imports only point down cli → policy → primitives → runtime) enforced with no-restricted-imports,
// and bench/ and eval/ kept out of the product: benchmarks and the evaluation (its A/B runner, task
// sets, simulator, report and decision) import every layer, never the reverse.
// Functions outside the tests stay at most 60 lines (blank lines and comments aside): a longer one is
// steps that want names of their own.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const importsOf = (dir, message) => ({ group: [`**/${dir}/*`, `../${dir}/*`, `../../${dir}/*`], message });
const OUTSIDE = [
  importsOf('bench', 'product code does not import bench/: benchmarks use the product'),
  importsOf(
    'eval',
    'product code does not import eval/: the evaluation uses the product (docs/architecture.md)',
  ),
];

const layer = (files, forbidden) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...forbidden.map((dir) =>
            importsOf(dir, 'imports only point down cli → policy → primitives → runtime'),
          ),
          ...OUTSIDE,
        ],
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
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly', console: 'readonly' } },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    ignores: ['test/**'],
    rules: {
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
    },
  },
  layer(['runtime/**/*.ts'], ['cli', 'policy', 'primitives']),
  layer(['primitives/**/*.ts'], ['cli', 'policy']),
  layer(['policy/**/*.ts'], ['cli']),
  {
    files: ['cli/**/*.ts', 'cli/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: OUTSIDE,
        },
      ],
    },
  },
  {
    files: ['eval/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: ['ink', 'react'].map((name) => ({ name, message: 'ink/react belong to cli/ only' })) },
      ],
    },
  },
);
