// The test command as CI runs it: the shell forms read through (`VAR=x pytest`, `cd tests &&
// pytest`, `env`, `time`, `coverage run -m pytest`), what the command names becoming requirements
// of the environment, the launchers the venv's bin gets, the suite ranked over one test / a version
// check / a lint / a doc build, and a direct reference degraded to its name.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pipRequirements } from '../../runtime/env/build/deps/direct-references.js';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { renderPlanText } from '../../runtime/env/plan/render.js';
import { nameInUrlPath } from '../../runtime/env/plan/deps/requirements-file.js';
import { detectTestCommand } from '../../runtime/env/plan/tests/test-command.js';
import { launchersFor } from '../../runtime/env/plan/tests/test-programs.js';
import { rankCommand } from '../../runtime/env/plan/tests/test-rank.js';
import { runsTests } from '../../runtime/env/plan/tests/test-runners.js';
import { lineRunners, simpleCommands } from '../../runtime/env/plan/tests/test-shell.js';
import { launchersStep } from '../../runtime/env/build/project/venv-launchers.js';

const roots: string[] = [];
function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'piper-suite-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function workflow(steps: Array<[string, string]>): string {
  const body = steps.map(([name, run]) => `      - name: ${name}\n        run: ${run}\n`).join('');
  return `name: CI\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n${body}`;
}

describe('a test command line read as the shell starts it', () => {
  it('sets aside assignments, env, time and cd, and sees the runner under coverage', () => {
    expect(simpleCommands('cd tests && SHELL_FORM=yes pytest -q; echo done')).toEqual([
      ['cd', 'tests'],
      ['pytest', '-q'],
      ['echo', 'done'],
    ]);
    expect(simpleCommands('env -u HOME A=1 time -p py.test -x')).toEqual([['py.test', '-x']]);
    expect(lineRunners('python -X dev -m coverage run --source pkg -m pytest -k "a or b" tests')).toEqual([
      {
        kind: 'module',
        module: 'coverage',
        args: ['run', '--source', 'pkg', '-m', 'pytest', '-k', 'a or b', 'tests'],
      },
      { kind: 'pytest', args: ['-k', 'a or b', 'tests'] },
    ]);
    expect(lineRunners('coverage run -m unittest discover')).toEqual([
      { kind: 'program', program: 'coverage', args: ['run', '-m', 'unittest', 'discover'] },
      { kind: 'unittest', args: ['discover'] },
    ]);
    for (const line of [
      'VAR=x pytest tests',
      'cd tests && pytest',
      'env A=1 pytest',
      'time pytest',
      'coverage run -m pytest',
      'python -m coverage run -p -m unittest discover -s tests',
    ])
      expect(runsTests(line), line).toBe(true);
    expect(runsTests('coverage report -m')).toBe(false);
    expect(runsTests('cd docs && make check')).toBe(false);
    expect(runsTests('python -c "import pkg; print(pkg.__version__)"')).toBe(false);
  });
});

describe('what the test command names is a requirement of the environment', () => {
  it('adds coverage, a plugin given with -p and an option plugin, reason test-command', () => {
    const plan = planEnvironment(
      repo({
        '.github/workflows/ci.yml': workflow([
          ['Tests', 'COVERAGE_CORE=sysmon coverage run -m pytest -p pytest_mock --timeout 30 tests'],
        ]),
        'tests/test_a.py': 'def test_a():\n    pass\n',
      }),
    );
    const by = Object.fromEntries(plan.requirements.map((q) => [q.name, q]));
    expect(by.coverage).toMatchObject({ reason: 'test-command', debian: 'python3-coverage' });
    expect(by.coverage!.from).toBe(
      'the test command (.github/workflows/ci.yml job test step "Tests"): coverage',
    );
    expect(by['pytest-mock']?.reason).toBe('test-command');
    expect(by['pytest-timeout']?.from).toContain('--timeout');
    // pytest itself is the sandbox image's when nothing asks for another.
    expect(by.pytest).toBeUndefined();
    expect(renderPlanText(plan)).toMatch(/test-command +coverage +python3-coverage/);
  });

  it('gives the venv a launcher for each runner it names, besides pytest, py.test and coverage', () => {
    expect(launchersFor(null).map((l) => `${l.program}=${l.module}`)).toEqual([
      'pytest=pytest',
      'py.test=pytest',
      'coverage=coverage',
    ]);
    expect(launchersFor('cd tests && trial pkg').map((l) => l.program)).toContain('trial');
    const script = launchersStep(launchersFor('nose2 -v')).script;
    expect(script).toContain(`'exec /opt/piper/venv/bin/python -m pytest "$@"' >/opt/piper/venv/bin/py.test`);
    expect(script).toContain('>/opt/piper/venv/bin/nose2');
    expect(script).toContain('chmod 0755 /opt/piper/venv/bin/coverage');
    expect(() => launchersStep([{ program: 'x;rm', module: 'y' }])).toThrow(/not a launcher name/);
  });
});

describe('the default test command runs the suite', () => {
  function detect(files: Record<string, string>) {
    const decisions: string[] = [];
    return { ...detectTestCommand(repo(files), undefined, decisions), decisions };
  }

  it('ranks one test id, a version check, a lint and a doc build below the suite', () => {
    expect(rankCommand('pytest tests/test_x.py::test_y')).toMatchObject({ score: 1 });
    expect(rankCommand('pytest -k test_version')).toMatchObject({ score: 1 });
    expect(rankCommand('pytest -k "a or b" tests').score).toBe(3);
    expect(rankCommand('python -m pytest --version').what).toBe('a version check (--version)');
    expect(rankCommand('pytest --mypy -m mypy src').what).toBe('a lint run (-m mypy)');
    expect(rankCommand('pytest docs/').what).toBe('a doc test (docs/)');
    expect(rankCommand('tox -e docs,lint', 'pytest').score).toBe(0);
    expect(rankCommand('tox -e py311', 'pytest').score).toBe(3);
    expect(rankCommand('tox -e coverage', 'pytest').score).toBe(3);
    expect(rankCommand('pytest tests/test_core.py').score).toBe(2);
    expect(rankCommand('cd tests && pytest').what).toBe("pytest's discovery");
    expect(rankCommand('python -m unittest tests.test_a.T.test_one').score).toBe(1);
    expect(rankCommand('python -m unittest discover -s tests').score).toBe(3);
  });

  it('takes tox over a CI step that runs one test id, and says why', () => {
    const found = detect({
      '.github/workflows/ci.yml': workflow([
        ['Version', 'python -m pytest tests/test_meta.py::test_version'],
        ['Lint', 'pytest --version'],
      ]),
      'tox.ini': '[testenv]\ncommands = pytest {posargs:tests}\n',
    });
    expect(found).toMatchObject({ command: 'pytest tests', from: 'tox.ini [testenv] commands' });
    expect(found.decisions).toContain(
      'test command `pytest tests` chosen: it runs the test directory tests, over `python -m pytest tests/test_meta.py::test_version` (.github/workflows/ci.yml job test step "Version": one test id (tests/test_meta.py::test_version)), `pytest --version` (.github/workflows/ci.yml job test step "Lint": a version check (--version))',
    );
  });

  it('reads tox command lines continued with a backslash, and `python -m tox` in CI', () => {
    const found = detect({
      '.github/workflows/ci.yml': workflow([['Tox', 'python -m tox']]),
      'tox.ini':
        '[testenv]\ncommands =\n    {envpython} -m pytest \\\n      --cov pkg \\\n      --cov-report term \\\n      {posargs}\n',
    });
    expect(found).toMatchObject({
      command: 'python -m pytest --cov pkg --cov-report term',
      from: '.github/workflows/ci.yml job test step "Tox"',
    });
  });

  it("keeps the project's own narrower command over bare discovery, and the first among equals", () => {
    // A single file is the project's word for its suite: discovery does not replace it.
    expect(detect({ Makefile: 'test:\n\tpytest test_all.py\n' }).command).toBe('pytest test_all.py');
    // Only one test id named anywhere: pytest's discovery, said as such.
    const only = detect({ '.github/workflows/ci.yml': workflow([['One', 'pytest tests/t.py::test_a']]) });
    expect(only.command).toBe('python -m pytest');
    expect(only.from).toMatch(/^pytest's discovery \(the default\)/);
    const two = detect({
      '.github/workflows/ci.yml': workflow([
        ['Unit', 'pytest tests/unit'],
        ['All', 'pytest tests'],
      ]),
    });
    expect(two.command).toBe('pytest tests/unit');
    expect(two.decisions.join('\n')).not.toMatch(/chosen:/);
  });
});

describe('a direct reference degrades to its name', () => {
  it('names a URL without #egg= by its path', () => {
    expect(nameInUrlPath('git+https://example.invalid/o/six.git@1.16.0')).toBe('six');
    expect(nameInUrlPath('https://example.invalid/dl/idna-3.4.tar.gz#sha256=00')).toBe('idna');
    expect(nameInUrlPath('https://example.invalid/w/attrs-25.3.0-py3-none-any.whl')).toBe('attrs');
    expect(nameInUrlPath('https://example.invalid/download?id=3')).toBeNull();
  });

  it('is planned with its URL and one line, and handed to pip by its name unless trusted', () => {
    const plan = planEnvironment(
      repo({
        'requirements.txt':
          'attrs @ git+https://example.invalid/attrs\ngit+https://example.invalid/o/six.git\nidna --index-url=https://evil.invalid/simple\n',
      }),
    );
    expect(plan.requirements.map((q) => q.line)).toEqual([
      'attrs @ git+https://example.invalid/attrs',
      'idna',
      'six @ git+https://example.invalid/o/six.git',
    ]);
    expect(plan.decisions).toContain(
      "attrs: `git+https://example.invalid/attrs` (requirements.txt:1) is a direct reference: fetched only when you trust the repository's configuration (--trust-repo-config); otherwise never fetched, and attrs is resolved by its name from your pip sources, then Debian",
    );
    // A pip option hidden in a requirement line is still refused.
    expect(plan.skipped.map((s) => s.reason)).toContain(
      'unknown per-requirement option --index-url=https://evil.invalid/simple: ignored',
    );
    const untrusted = pipRequirements(plan.requirements, false);
    expect(untrusted.requirements.map((q) => [q.line, q.url])).toEqual([
      ['attrs', undefined],
      ['idna', undefined],
      ['six', undefined],
    ]);
    expect(untrusted.said).toMatch(
      /^direct references not fetched .*: attrs \(git\+https:\/\/example\.invalid\/attrs\), six/,
    );
    // Poetry's git and url tables are direct references too; a path one is still skipped.
    const poetry = planEnvironment(
      repo({
        'pyproject.toml':
          '[tool.poetry]\nname = "p"\n\n[tool.poetry.dependencies]\npython = "^3.9"\nsix = { git = "https://example.invalid/o/six.git", tag = "1.16.0" }\nidna = { url = "https://example.invalid/idna-3.4.tar.gz" }\nlocal = { path = "../local" }\n',
      }),
    );
    expect(poetry.requirements.map((q) => q.line)).toEqual([
      'idna @ https://example.invalid/idna-3.4.tar.gz',
      'six @ git+https://example.invalid/o/six.git@1.16.0',
    ]);
    expect(poetry.skipped.map((q) => q.reason)).toContain(
      'a Poetry path dependency: not installed from an index',
    );
    const trusted = pipRequirements(plan.requirements, true);
    expect(trusted.requirements[0]!.url).toBe('git+https://example.invalid/attrs');
    expect(trusted.said).toBeNull();
  });
});
