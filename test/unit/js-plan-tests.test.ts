// The JavaScript plan's test command (runtime/env/js/tests/): the CI's test step first, else
// package.json's test script; script chains expanded, tooling and `npm link` dropped, build steps kept
// before the tests, the runner recorded, the step's env checked.
import { describe, expect, it } from 'vitest';
import { planOf, workflow } from '../helpers/js-plan-repo.js';

function pkg(scripts: Record<string, string>, extra: object = {}): object {
  return { name: 'x', version: '1.0.0', scripts, ...extra };
}

describe('the test command from package.json', () => {
  it('expands a chain, dropping tooling and keeping wrappers', () => {
    const plan = planOf({
      'package.json': pkg({
        test: 'npm run lint && npm run test:types && npm run test:unit',
        lint: 'eslint . && prettier --check .',
        'test:types': 'tsc --noEmit',
        'test:unit': 'cross-env NODE_ENV=test c8 --reporter lcov mocha "test/**/*.spec.js"',
      }),
      'package-lock.json': '{}',
    });
    expect(plan.testCommand).toBe('cross-env NODE_ENV=test c8 --reporter lcov mocha "test/**/*.spec.js"');
    expect(plan.testRunner).toBe('mocha');
    expect(plan.testCommandFrom).toBe('package.json scripts.test');
    const decisions = plan.decisions.join('\n');
    expect(decisions).toContain('`eslint .` dropped: a tooling step');
    expect(decisions).toContain('`tsc --noEmit` dropped: a tooling step');
  });

  it('strips npm link, keeps a build before the tests and passes arguments after --', () => {
    const plan = planOf({
      'package.json': pkg({
        build: 'tsc -p tsconfig.build.json',
        test: 'npm link && npm run build && npm run unit -- --runInBand',
        unit: 'jest',
      }),
    });
    expect(plan.testCommand).toBe('tsc -p tsconfig.build.json && jest --runInBand');
    expect(plan.testRunner).toBe('jest');
    const decisions = plan.decisions.join('\n');
    expect(decisions).toContain('`npm link` dropped: it links the package globally');
    expect(decisions).toMatch(/build steps kept \(`tsc -p tsconfig.build.json`\)/);
  });

  it("leaves npm's own options out and drops a coverage report", () => {
    const plan = planOf({
      'package.json': pkg({ test: 'tap', 'cov:report': 'c8 report --reporter=lcov' }),
      '.github/workflows/ci.yml': workflow(['npm test --ignore-scripts', 'npm run cov:report']),
    });
    expect(plan.testCommand).toBe('tap');
    const report = planOf({ 'package.json': pkg({ test: 'c8 ava && c8 report' }) });
    expect(report.testCommand).toBe('c8 ava');
  });

  it("keeps a script's cd inside that script", () => {
    const plan = planOf({
      'package.json': pkg({
        test: 'npm run docs-lint && npm run unit && npm run site',
        'docs-lint': 'cd docs && eslint .',
        unit: 'jest',
        site: 'cd site && jest',
      }),
    });
    expect(plan.testCommand).toBe('jest && (cd site && jest)');
    expect(plan.decisions.join('\n')).toContain('`(cd docs && eslint .)` dropped: a tooling step');
  });

  it("runs npm's pre hook, and not pnpm's", () => {
    const scripts = { pretest: 'npm run build', build: 'rollup -c', test: 'vitest run' };
    expect(planOf({ 'package.json': pkg(scripts) }).testCommand).toBe('rollup -c && vitest run');
    const pnpm = planOf({ 'package.json': pkg(scripts), 'pnpm-lock.yaml': "lockfileVersion: '9.0'\n" });
    expect(pnpm.testCommand).toBe('vitest run');
  });

  it("runs the root package's own native install script before the tests, and no other install script", () => {
    const native = planOf({
      'package.json': pkg({ install: 'node-gyp-build', test: 'node --test test.cjs' }),
    });
    expect(native.testCommand).toBe('npm run install && node --test test.cjs');
    expect(native.testRunner).toBe('node-test');
    expect(native.decisions.join('\n')).toContain(
      "the root package's install script builds its native addon",
    );
    const husky = planOf({ 'package.json': pkg({ postinstall: 'husky install', test: 'jest' }) });
    expect(husky.testCommand).toBe('jest');
  });

  it('keeps a build for the browser (build:browser) as a build step, before the tests', () => {
    const scripts = {
      pretest: 'npm run build',
      build: 'run-p build:*',
      'build:browser': 'node build-browser && npm run minify',
      'build:node': 'babel src -d .',
      minify: 'uglifyjs validator.js -o validator.min.js',
      test: 'mocha',
    };
    expect(planOf({ 'package.json': pkg(scripts) }).testCommand).toBe(
      'node build-browser && uglifyjs validator.js -o validator.min.js && babel src -d . && mocha',
    );
  });

  it("expands run-s, pnpm's /regex/ and yarn's bins", () => {
    const runS = planOf({
      'package.json': pkg({
        test: 'run-s lint test:*',
        lint: 'xo',
        'test:node': 'node --test test/',
        'test:e2e': 'playwright test',
      }),
    });
    expect(runS.testCommand).toBe('node --test test/');
    expect(runS.testRunner).toBe('node-test');
    expect(runS.decisions.join('\n')).toContain(
      '`playwright test` dropped: it needs a browser or a running service',
    );
    const regex = planOf({
      'package.json': pkg({ test: 'pnpm run "/^test:/"', 'test:lint': 'oxlint', 'test:unit': 'borp' }),
      'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
    });
    expect(regex.testCommand).toBe('borp');
    const yarn = planOf({
      'package.json': pkg({ test: 'yarn jest --ci' }),
      'yarn.lock': '# yarn lockfile v1\n',
    });
    expect(yarn.testCommand).toBe('jest --ci');
  });

  it('wraps a coverage tool around the script it runs', () => {
    const plan = planOf({
      'package.json': pkg({ test: 'mocha test/', 'test-ci': 'nyc --reporter=text npm test' }),
      '.github/workflows/ci.yml': workflow(['npm run test-ci']),
    });
    expect(plan.testCommand).toBe('nyc --reporter=text mocha test/');
    expect(plan.testRunner).toBe('mocha');
  });

  it("ignores npm's placeholder and says when nothing runs tests", () => {
    const plan = planOf({ 'package.json': pkg({ test: 'echo "Error: no test specified" && exit 1' }) });
    expect(plan.testCommand).toBeNull();
    expect(plan.testRunner).toBe('unknown');
    expect(plan.decisions.join('\n')).toContain('no test command');
  });

  it('runs a local program without its launcher', () => {
    const run = (test: string) => planOf({ 'package.json': pkg({ test }) }).testCommand;
    expect(run('npx --no-install jest --ci')).toBe('jest --ci');
    expect(run('NODE_ENV=test npx vitest run')).toBe('NODE_ENV=test vitest run');
    expect(run('pnpm exec mocha')).toBe('mocha');
    expect(run('npx -p x mocha')).toBe('npx -p x mocha');
  });

  it('keeps a workspace-wide run as written', () => {
    const plan = planOf({
      'package.json': pkg({ test: 'pnpm -r test' }),
      'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
    });
    expect(plan.testCommand).toBe('pnpm -r test');
    expect(plan.testRunner).toBe('unknown');
    const agreed = planOf({
      'package.json': pkg({ test: 'lerna run test' }, { workspaces: ['packages/*'] }),
      'packages/a/package.json': pkg({ test: 'vitest run' }),
      'packages/b/package.json': pkg({ test: 'npm run unit', unit: 'vitest run --dir src' }),
      'packages/c/package.json': pkg({ build: 'tsc' }),
    });
    expect(agreed.testRunner).toBe('vitest');
    expect(agreed.decisions.join('\n')).toContain("the workspace packages' test scripts all run vitest");
  });

  it.each([
    ['ava --verbose', 'ava'],
    ['tap test/*.js', 'tap'],
    ['tape test/*.js | tap-spec', 'tape'],
    ['karma start --single-run', 'karma'],
    ['react-scripts test --watchAll=false', 'jest'],
    ['vitest run --coverage', 'vitest'],
    ['node --import tsx --test test/*.ts', 'node-test'],
    ['node ./node_modules/.bin/_mocha', 'mocha'],
    ['node test/tap.js', 'unknown'],
    ['node ./packages/jest-cli/bin/jest.js --ci', 'jest'],
    ['node bin/mocha.js test/', 'mocha'],
    ['kcd-scripts test', 'jest'],
    ['tsdx test --env=jsdom', 'jest'],
  ])('%s is %s', (test, runner) => {
    expect(planOf({ 'package.json': pkg({ test }) }).testRunner).toBe(runner);
  });
});

describe('the test command from the CI workflow', () => {
  it('takes the CI step, with the build it runs before, and its checked env', () => {
    const ci = `name: CI
on: [push]
env:
  FORCE_COLOR: "1"
jobs:
  test:
    runs-on: ubuntu-latest
    env:
      TOKEN: \${{ secrets.NPM_TOKEN }}
    steps:
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - run: npm ci
      - run: npm run build
      - run: npm run lint
      - name: Unit tests
        run: npm run test:unit
        env:
          TZ: UTC
          PATH: /evil
`;
    const plan = planOf({
      'package.json': pkg({
        build: 'tsup',
        lint: 'eslint .',
        test: 'npm run lint && vitest run',
        'test:unit': 'vitest run --project unit',
      }),
      'package-lock.json': '{}',
      '.github/workflows/ci.yml': ci,
    });
    expect(plan.testCommand).toBe('tsup && vitest run --project unit');
    expect(plan.testCommandFrom).toBe('.github/workflows/ci.yml job test step "Unit tests"');
    expect(plan.testRunner).toBe('vitest');
    expect(plan.testEnv).toEqual({ CI: 'true', FORCE_COLOR: '1', TZ: 'UTC' });
    const decisions = plan.decisions.join('\n');
    expect(decisions).toContain('env TOKEN not set');
    expect(decisions).toContain('env PATH not set');
  });

  it('runs the build of the job the test job needs (its artifact on a runner) before the tests', () => {
    const ci = `jobs:
  setup:
    steps:
      - run: pnpm install
  build:
    needs: setup
    steps:
      - run: pnpm install
      - run: pnpm build
  lint:
    steps:
      - run: pnpm run build:types
  test:
    needs: [build, lint]
    strategy:
      matrix:
        node: [22, 24]
    steps:
      - run: pnpm install
      - run: pnpm test
`;
    const plan = planOf({
      'package.json': pkg({ build: 'tsdown', 'build:types': 'tsc', test: 'vitest' }),
      'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
      '.github/workflows/ci.yml': ci,
    });
    expect(plan.testCommand).toBe('tsdown && tsc && vitest');
    expect(plan.testCommandFrom).toBe('.github/workflows/ci.yml job test step 2');
    expect(plan.testRunner).toBe('vitest');
  });

  it('prefers the test script over other test scripts, and the CI over a release job', () => {
    const release = `jobs:
  publish:
    steps:
      - run: npm run test:release
`;
    const plan = planOf({
      'package.json': pkg({
        test: 'jest',
        'test:release': 'jest --ci --coverage',
        'test:e2e': 'cypress run',
      }),
      '.github/workflows/ci.yml': workflow(['npm run test:e2e', 'npx jest --ci']),
      '.github/workflows/a-release.yml': release,
    });
    expect(plan.testCommand).toBe('jest --ci');
    expect(plan.testRunner).toBe('jest');
  });

  it('takes a CI line whose script starts a runner, whatever its name', () => {
    const plan = planOf({
      'package.json': pkg({
        test: 'npm run lint && npm run unit',
        lint: 'eslint .',
        unit: 'borp --coverage',
        docs: 'node build-docs.js',
      }),
      '.github/workflows/ci.yml': workflow(['npm run docs', 'npm run unit']),
    });
    expect(plan.testCommand).toBe('borp --coverage');
    expect(plan.testCommandFrom).toBe('.github/workflows/ci.yml job test step 4');
  });

  it('ranks a step only Windows or macOS takes below the others', () => {
    const ci = `jobs:
  test:
    steps:
      - name: Windows
        if: matrix.os == 'windows-latest'
        run: npm test -- --allow-incomplete-coverage
      - name: Unix
        if: matrix.os != 'windows-latest'
        run: npm test -- -c
`;
    const plan = planOf({ 'package.json': pkg({ test: 'tap' }), '.github/workflows/ci.yml': ci });
    expect(plan.testCommand).toBe('tap -c');
  });

  it('passes over a line holding an expression', () => {
    const plan = planOf({
      'package.json': pkg({ test: 'ava' }),
      '.github/workflows/ci.yml': workflow(['npm run test:${{ matrix.kind }}']),
    });
    expect(plan.testCommand).toBe('ava');
    expect(plan.decisions.join('\n')).toContain('not used: it holds a `${{ }}` expression');
  });

  it("passes over a step that runs in a package's directory", () => {
    const ci = `jobs:
  test:
    defaults:
      run:
        working-directory: packages/app
    steps:
      - run: npm test
`;
    const plan = planOf({ 'package.json': pkg({ test: 'ava' }), '.github/workflows/ci.yml': ci });
    expect(plan.testCommand).toBe('ava');
    expect(plan.decisions.join('\n')).toContain('not used: it runs in packages/app, not at the root');
  });

  it('uses the recipe over everything', () => {
    const plan = planOf({ 'package.json': pkg({ test: 'ava' }) }, { test: 'vitest run test/a.test.ts' });
    expect(plan).toMatchObject({
      testCommand: 'vitest run test/a.test.ts',
      testRunner: 'vitest',
      testCommandFrom: '.piper/sandbox.toml test',
    });
  });
});
