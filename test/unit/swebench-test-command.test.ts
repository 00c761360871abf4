// The command an instance is graded with (eval/swebench/test-command.ts): the public harness's own,
// cut from its eval script and made to run under the sandbox's python3, or the repository's known
// runner when the instance carries none; and the runner kind that picks the reader. The commands
// are the real ones of Verified instances (one per runner form in the dev files).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInstances } from '../../eval/swebench/instance-file.js';
import { markedCommand, runnerOf, sandboxed, testCommand } from '../../eval/swebench/test-command.js';
import { shellArgv, targetArgv } from '../../primitives/tools/run-test/effect.js';

const DJANGO_FIXTURE = join(__dirname, '../fixtures/swebench/django-style/instances.jsonl');

describe('markedCommand', () => {
  it('cuts the lines between the harness test-output markers', () => {
    const script = [
      'git apply -v - <<EOF',
      'EOF',
      ": '>>>>> Start Test Output'",
      'pytest -rA astropy/modeling/tests/test_separable.py',
      ": '>>>>> End Test Output'",
      'git checkout abc astropy/modeling/tests/test_separable.py',
    ].join('\n');
    expect(markedCommand(script)).toBe('pytest -rA astropy/modeling/tests/test_separable.py');
    expect(markedCommand('pytest -rA x.py')).toBeNull();
    expect(markedCommand(undefined)).toBeNull();
  });
});

describe('sandboxed', () => {
  it("runs sympy's bin/test under python3 with its warnings variable through env, stderr joined", () => {
    const target = sandboxed(
      "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose sympy/geometry/tests/test_point.py",
      'sympy',
    );
    expect(target).toBe(
      "env PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' python3 bin/test -C --verbose sympy/geometry/tests/test_point.py 2>&1",
    );
    // A first word holding `::` would read as a pytest node id: through env it is a shell string.
    expect(targetArgv(target)).toEqual(shellArgv(target));
  });

  it("runs Django's runtests.py under python3 with its labels", () => {
    const target = sandboxed(
      './tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 auth_tests.test_validators',
      'unittest',
    );
    expect(target).toBe(
      'python3 tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 auth_tests.test_validators 2>&1',
    );
    expect(targetArgv(target)).toEqual(shellArgv(target));
  });

  it("runs the pytest a sphinx instance's tox wraps, and keeps pytest's cache out of the tree", () => {
    expect(sandboxed('tox --current-env -epy39 -v -- tests/test_ext_autodoc.py', 'pytest')).toBe(
      'python3 -m pytest -p no:cacheprovider -rA tests/test_ext_autodoc.py',
    );
    const astropy = sandboxed(
      'pytest -rA -vv -o console_output_style=classic --tb=no astropy/io/fits/tests/test_header.py',
      'pytest',
    );
    expect(targetArgv(astropy)[0]).toBe('python3');
    expect(targetArgv(astropy).slice(1, 3)).toEqual(['-m', 'pytest']);
  });
});

describe('testCommand', () => {
  it("grades the Django-style fixture with the harness's command, or with the known runner over the test patch's labels", () => {
    const [withScript, without] = loadInstances(DJANGO_FIXTURE);
    expect(runnerOf(withScript!)).toBe('unittest');
    expect(testCommand(withScript!).target).toBe(
      'python3 tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 shapes_tests.tests 2>&1',
    );
    expect(testCommand(without!)).toEqual(testCommand(withScript!));
  });

  it('reads the runner from the repository when the instance names no log parser', () => {
    const [base] = loadInstances(DJANGO_FIXTURE);
    const { log_parser: _p, eval_script: _s, ...plain } = base!;
    expect(runnerOf({ ...plain, repo: 'sympy/sympy' })).toBe('sympy');
    expect(runnerOf({ ...plain, repo: 'django/django' })).toBe('unittest');
    expect(runnerOf({ ...plain, repo: 'pydata/xarray' })).toBe('pytest');
    const sympy = testCommand({ ...plain, repo: 'sympy/sympy' });
    expect(sympy.target).toBe('python3 bin/test -C --verbose tests/shapes_tests/tests.py 2>&1');
  });
});
