// Which test runner a command step starts, from its words: the first word naming a known runner's
// program (so `c8 --reporter lcov mocha`, `nyc ava`, `cross-env CI=1 jest` are mocha, ava, jest),
// node's own runner (`node --test`, `tsx --test`, borp), and the tools that run jest or karma under
// another name (react-scripts, craco, ng). The output reader uses it to ask the runner for
// machine-readable output.
export const JS_TEST_RUNNERS = [
  'jest',
  'vitest',
  'mocha',
  'node-test',
  'ava',
  'tap',
  'tape',
  'karma',
  'unknown',
] as const;
export type JsTestRunner = (typeof JS_TEST_RUNNERS)[number];

/** Program names (a path's last part, `.js`/`.bin` forms included) and the runner they are. */
const PROGRAMS: ReadonlyMap<string, JsTestRunner> = new Map([
  ['jest', 'jest'],
  ['vitest', 'vitest'],
  ['mocha', 'mocha'],
  ['_mocha', 'mocha'],
  ['ts-mocha', 'mocha'],
  ['electron-mocha', 'mocha'],
  ['mocha-headless-chrome', 'mocha'],
  ['ava', 'ava'],
  ['tap', 'tap'],
  ['tape', 'tape'],
  ['karma', 'karma'],
  ['borp', 'node-test'],
  ['bnt', 'node-test'],
]);

/** Tools whose `test` subcommand is jest's or karma's. */
const VIA_SUBCOMMAND: ReadonlyMap<string, JsTestRunner> = new Map([
  ['react-scripts', 'jest'],
  ['craco', 'jest'],
  ['kcd-scripts', 'jest'],
  ['tsdx', 'jest'],
  ['razzle', 'jest'],
  ['rescripts', 'jest'],
  ['ng', 'karma'],
]);

/**
 * The program a word names: a bare name, a path into node_modules (`node_modules/.bin/jest`,
 * `node_modules/mocha/bin/_mocha`: the package's), or a `bin/` script. A test file (`test/tap.js`)
 * names none.
 */
function programName(word: string): string {
  const at = word.lastIndexOf('node_modules/');
  if (at >= 0) {
    const [first = '', second = ''] = word.slice(at + 'node_modules/'.length).split('/');
    return first === '.bin' ? second : first;
  }
  // A runner's own repository starts it from its source (`node ./packages/jest-cli/bin/jest.js`).
  const bin = /(?:^|\/)bin\/(_?[\w-]+?)(?:\.[cm]?js)?$/.exec(word)?.[1];
  if (bin !== undefined) return bin;
  return word.includes('/') || /\.[cm]?[jt]s$/.test(word) ? '' : word;
}

/** The runner one step's words start, or null when none this table knows. */
export function runnerOfWords(words: readonly string[]): JsTestRunner | null {
  const programs = words.map(programName);
  const nodeLike = programs.findIndex((p) => p === 'node' || p === 'tsx' || p === 'ts-node');
  if (nodeLike >= 0 && words.slice(nodeLike + 1).some((w) => w === '--test' || w.startsWith('--test=')))
    return 'node-test';
  for (const [i, program] of programs.entries()) {
    const runner = PROGRAMS.get(program);
    if (runner) return runner;
    const via = VIA_SUBCOMMAND.get(program);
    if (via && words[i + 1] === 'test') return via;
  }
  return null;
}
