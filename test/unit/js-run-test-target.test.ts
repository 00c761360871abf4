// run_test's target in a JavaScript project: a path or a runner option runs with the project's
// runner, its machine report framed after it exits; anything else is the shell string it is.
// A Python project's targets are untouched (test-command.test.ts, swebench-test-command.test.ts).
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsTargetArgv } from '../../primitives/tools/run-test/js-target.js';
import { shellArgv, targetArgv } from '../../primitives/tools/run-test/effect.js';

const repo = mkdtempSync(join(tmpdir(), 'piper-js-target-'));
mkdirSync(join(repo, 'src'));
writeFileSync(join(repo, 'src', 'sum.ts'), '');
mkdirSync(join(repo, 'scripts'));
writeFileSync(join(repo, 'scripts', 'build.sh'), '');
const script = (argv: string[]) => argv[4]!;

describe("a path target runs with the project's runner and its report", () => {
  it('jest: in band, its JSON into a file, framed, the status kept', () => {
    const argv = jsTargetArgv('src/foo.test.ts -t "adds two"', repo, 'jest');
    expect(argv.slice(0, 4)).toEqual(shellArgv('x').slice(0, 4));
    const s = script(argv);
    expect(s).toMatch(
      /^rm -f \/tmp\/piper-report\.json; node_modules\/\.bin\/jest --ci --runInBand --json --outputFile=\/tmp\/piper-report\.json src\/foo\.test\.ts -t "adds two"; status=\$\?; /,
    );
    expect(s).toContain("'@@piper-report jest-json@@'");
    expect(s).toMatch(/; exit \$status$/);
  });

  it('vitest in one forked worker, both its reporters; mocha with --exit; node:test with TAP beside spec', () => {
    expect(script(jsTargetArgv('test/a.spec.js', repo, 'vitest'))).toContain(
      'vitest run --pool=forks --maxWorkers=1 --reporter=default --reporter=json --outputFile.json=/tmp/piper-report.json test/a.spec.js',
    );
    expect(script(jsTargetArgv('test/a.spec.js', repo, 'mocha'))).toContain(
      'mocha --exit --reporter json --reporter-option output=/tmp/piper-report.json test/a.spec.js',
    );
    expect(script(jsTargetArgv('test/a.test.mjs', repo, 'node-test'))).toContain(
      '--test-reporter=tap --test-reporter-destination=/tmp/piper-report.tap test/a.test.mjs',
    );
  });

  it('TAP runners copy their stdout into the report with tee (pipefail keeps the status)', () => {
    expect(script(jsTargetArgv('test/a.js', repo, 'tape'))).toContain(
      'node_modules/.bin/tape test/a.js | tee /tmp/piper-report.tap;',
    );
    expect(script(jsTargetArgv('test/a.js', repo, 'ava'))).toContain(
      'ava --tap --concurrency=2 test/a.js | tee',
    );
  });

  it('an existing path and a runner option are targets of the runner too', () => {
    expect(script(jsTargetArgv('src/sum.ts', repo, 'jest'))).toContain(
      '--outputFile=/tmp/piper-report.json src/sum.ts',
    );
    expect(script(jsTargetArgv('-t adds', repo, 'jest'))).toContain(
      '--outputFile=/tmp/piper-report.json -t adds',
    );
  });
});

describe('anything else runs as the shell string it is', () => {
  it.each([
    'npm test',
    'npx jest -t adds',
    'cd packages/a && yarn test',
    'node --test',
    // A command line the plan read (a build script, then the runner): not a path for the runner.
    './scripts/build.sh && node --test dist/test/*.js',
    'scripts/build.sh',
    'src/sum.ts | tee log',
  ])('%s', (target) => {
    expect(jsTargetArgv(target, repo, 'jest')).toEqual(shellArgv(target));
  });

  it('a runner piper has no reporter for (karma), or none named nor depended on, runs the target as written', () => {
    for (const runner of ['karma', 'unknown', undefined])
      expect(jsTargetArgv('src/foo.test.ts', repo, runner)).toEqual(shellArgv('src/foo.test.ts'));
  });

  it('no runner named: the one the root package.json depends on', () => {
    const project = mkdtempSync(join(tmpdir(), 'piper-js-manifest-'));
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ devDependencies: { jest: '30', vitest: '4' } }),
    );
    expect(script(jsTargetArgv('src/a.test.ts', project, undefined))).toContain(
      'node_modules/.bin/vitest run',
    );
    expect(script(jsTargetArgv('src/a.test.ts', project, 'unknown'))).toContain(
      'node_modules/.bin/vitest run',
    );
    expect(script(jsTargetArgv('src/a.test.ts', project, 'mocha'))).toContain(
      'node_modules/.bin/mocha --exit',
    );
  });

  it("the Python target is unchanged: a path is pytest's", () => {
    expect(targetArgv('src/sum.ts', repo)).toEqual(['python3', '-m', 'pytest', 'src/sum.ts']);
  });
});
