// Lint: typescript-eslint's recommended rules, plus the layering rule of docs/architecture.md
// (imports only point down cli → core → policy → primitives → runtime) enforced with
// no-restricted-imports, and bench/ and eval/ kept out of the product: benchmarks and the evaluation
// (its A/B runner, task sets, simulator, report and decision) use the product's core, never its UI
// (cli/), and the product never imports them; eval's own command line (eval/main.ts, eval/commands/)
// runs on the core's command-line runner and flag helpers (core/command-line/, core/options.ts).
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
            importsOf(dir, 'imports only point down cli → core → policy → primitives → runtime'),
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
  layer(['runtime/**/*.ts'], ['cli', 'core', 'policy', 'primitives']),
  layer(['primitives/**/*.ts'], ['cli', 'core', 'policy']),
  layer(['policy/**/*.ts'], ['cli', 'core']),
  layer(['core/**/*.ts'], ['cli']),
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
    files: ['eval/**/*.ts', 'bench/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            importsOf('cli', 'the evaluation and the benchmarks use the core (core/), not the UI (cli/)'),
          ],
          paths: ['ink', 'react'].map((name) => ({ name, message: 'ink/react belong to cli/ only' })),
        },
      ],
    },
  },
);
