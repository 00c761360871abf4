// What one command step is, from the program it starts: a tooling step the test command leaves out
// (linters, formatters, type checks, coverage uploads), a build step (kept only before tests), a
// setup step (clean a directory, make one), `npm link` (writes outside the project: stripped), or
// else a test step. The tables name programs as their packages install them.

export type StepKind = 'test' | 'build' | 'setup' | 'tool' | 'link' | 'e2e';

const TOOLS = new Set([
  'eslint',
  'xo',
  'prettier',
  'biome',
  'oxlint',
  'tslint',
  'standard',
  'ts-standard',
  'semistandard',
  'stylelint',
  'markdownlint',
  'markdownlint-cli2',
  'remark',
  'cspell',
  'tsd',
  'dtslint',
  'knip',
  'attw',
  'publint',
  'depcheck',
  'madge',
  'dpdm',
  'size-limit',
  'lint-staged',
  'commitlint',
  'type-coverage',
  'typedoc',
  'api-extractor',
  'codecov',
  'coveralls',
  'check-dts',
  'syncpack',
  'manypkg',
  'sort-package-json',
  'editorconfig-checker',
  'licensee',
  'dependency-cruiser',
  'depcruise',
  'jsr',
  'are-the-types-wrong',
  'check-export-map',
  'lockfile-lint',
  'installed-check',
  'tstyche',
  'flow',
  'automd',
]);

const BUILDS = new Set([
  'tsc',
  'vue-tsc',
  'rollup',
  'webpack',
  'esbuild',
  'tsup',
  'babel',
  'swc',
  'unbuild',
  'microbundle',
  'tshy',
  'pkgroll',
  'bunchee',
  'tsdown',
  'rolldown',
  'gulp',
  'grunt',
  'ncc',
  'tsc-alias',
  'copyfiles',
  'node-gyp',
  'prebuild',
  'cmake-js',
  'lerna-build',
  'zshy',
  'tsdx',
  'rspack',
  'parcel',
  'vite',
]);

const SETUP = new Set([
  'rimraf',
  'del',
  'del-cli',
  'rm',
  'mkdir',
  'mkdirp',
  'make-dir',
  'cp',
  'cpy',
  'shx',
  'echo',
  'cd',
  'true',
  'touch',
  'printf',
  'sleep',
  'wait-on',
]);

/** Script names whose steps build (their `test`-looking steps included). */
const BUILD_SCRIPT =
  /^(?:pre)?(?:build|compile|bundle|dist|prepare|prepublish|gen|generate|codegen|transpile)(?:$|[:\-_.])/;
/** Words of a script's name (`test:lint`, `test-types`) that make it a check, not a test. */
const TOOL_WORD =
  /^(?:lint|eslint|dtslint|oxlint|xo|format|fmt|prettier|typecheck|type-check|types|typescript|check-types|tsc|tsd|knip|style|spell|size|depcheck|attw|publint|biome|exports-check|dts)$/;
/** Words of a script's name that make it a suite needing a browser or a running service. */
const E2E_WORD =
  /^(?:e2e|browser|browsers|karma|playwright|cypress|puppeteer|webdriver|saucelabs|bench|benchmark)$/;

/** What a step that starts `words` (assignments and npx already left out) is. */
export function kindOfWords(words: readonly string[]): StepKind {
  const [program = '', sub = ''] = words;
  if ((program === 'npm' || program === 'yarn' || program === 'pnpm') && sub === 'link') return 'link';
  if (TOOLS.has(program) || program.startsWith('@biomejs/')) return 'tool';
  // A coverage tool's report or threshold check, after the tests ran under it.
  if ((program === 'nyc' || program === 'c8') && ['report', 'check-coverage', 'merge'].includes(sub))
    return 'tool';
  if ((program === 'tsc' || program === 'vue-tsc') && words.some((w) => /^--?noEmit(?:=true)?$/.test(w)))
    return 'tool';
  if (program === 'vite' && sub !== 'build') return 'test';
  // `tsdx test`, `razzle test`: a build tool's test subcommand runs the tests.
  if (BUILDS.has(program) && sub !== 'test') return 'build';
  if (SETUP.has(program) || program === ':') return 'setup';
  return 'test';
}

/** The kind a script's name gives every step of it that would otherwise be a test step. */
export function kindOfScript(name: string): StepKind | null {
  const parts = name.split(/[:\-_.]/);
  if (parts.some((p) => TOOL_WORD.test(p))) return 'tool';
  // `build:browser` builds for a browser and needs none: a build script's name decides first.
  if (BUILD_SCRIPT.test(name)) return 'build';
  if (parts.some((p) => E2E_WORD.test(p))) return 'e2e';
  return null;
}
