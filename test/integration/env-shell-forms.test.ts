// The suite runs the way the project's CI runs it, through the real CLI, the real engine and real
// pytest: one small project whose CI workflow checks its version with one test id and runs its
// suite as `SHELL_FORM=yes coverage run -m pytest tests` (coverage declared nowhere), and whose
// requirements name attrs as a VCS URL (never fetched; Debian's python3-attr serves it by name).
// One environment build; every shell form then runs the venv's pytest with the project importable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { runCli } from '../helpers/cli.js';
import { envRows, envScratch, NO_PIP } from '../helpers/env-repos.js';

const engine = new DockerEngine();
const scratch = envScratch('piper-shell-forms-');

const TESTS = `import os
import shutil
import subprocess
import sys

import attr
import shellpkg


def test_project_importable():
    assert shellpkg.VALUE == 42


def test_runs_in_the_venv():
    # Debian's /usr/bin/pytest would run /usr/bin/python3, whose prefix is /usr.
    assert sys.prefix == "/opt/piper/venv", sys.prefix


def test_vcs_requirement_served_by_name():
    @attr.s
    class Point:
        x = attr.ib()

    assert Point(1).x == 1


def test_variable_of_the_step():
    assert os.environ.get("SHELL_FORM") == "yes"


def test_version():
    assert shellpkg.VALUE


def test_programs_on_path_are_the_environments():
    for program in ("python", "python3", "pytest", "py.test", "coverage", "shellpkg-hello"):
        assert shutil.which(program) == "/opt/piper/venv/bin/" + program, program
    out = subprocess.run(["shellpkg-hello"], capture_output=True, text=True, check=True)
    assert out.stdout == "hello 42\\n"
`;

const WORKFLOW = `name: CI
on: [push]
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - name: Version
        run: python -m pytest tests/test_shell.py::test_version
  test:
    runs-on: ubuntu-latest
    steps:
      - name: Tests
        run: SHELL_FORM=yes coverage run -m pytest tests
`;

let repo = '';
beforeAll(() => {
  repo = scratch.newRepo('shellpkg', {
    'pyproject.toml':
      '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "shellpkg"\nversion = "0.1.0"\n\n[project.scripts]\nshellpkg-hello = "shellpkg:hello"\n',
    'shellpkg/__init__.py': 'VALUE = 42\n\n\ndef hello():\n    print("hello", VALUE)\n',
    'requirements.txt': 'attrs @ git+https://example.invalid/attrs\n',
    'tests/test_shell.py': TESTS,
    '.github/workflows/ci.yml': WORKFLOW,
  });
});
afterAll(() => scratch.cleanup(engine));

interface RunTestJson {
  passed: boolean;
  target: string;
  output: string;
  counts?: { passed: number; failed: number; errors: number; skipped: number };
}

async function runTest(target?: string): Promise<RunTestJson> {
  const r = await runCli(['run-test', '--repo', repo, '--json', ...(target ? [target] : [])], {
    env: NO_PIP,
  });
  expect(r.code, `${r.stdout}\n${r.stderr.slice(-3000)}`).toBe(0);
  return JSON.parse(r.stdout) as RunTestJson;
}

describe('the suite as CI runs it', () => {
  it('env plan: the suite chosen over the one-test step, coverage required, the VCS URL by name', async () => {
    const r = await runCli(['env', 'plan', '--repo', repo], { env: NO_PIP });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('test command: SHELL_FORM=yes coverage run -m pytest tests');
    expect(r.stdout).toContain(
      'test command `SHELL_FORM=yes coverage run -m pytest tests` chosen: it runs the test directory tests, over `python -m pytest tests/test_shell.py::test_version` (.github/workflows/ci.yml job check step "Version": one test id (tests/test_shell.py::test_version))',
    );
    expect(r.stdout).toMatch(/test-command +coverage +python3-coverage/);
    expect(r.stdout).toContain(
      'otherwise never fetched, and attrs is resolved by its name from your pip sources, then Debian',
    );
  });

  it('run-test with no target: the coverage suite passes, coverage and attrs from Debian', async () => {
    const build = await runCli(['env', 'build', '--repo', repo], { env: NO_PIP });
    expect(build.code, build.stderr.slice(-3000)).toBe(0);
    expect(build.stdout).toMatch(
      /source direct references not fetched .*attrs \(git\+https:\/\/example\.invalid\/attrs\)/,
    );
    expect(build.stdout).toMatch(
      /source launchers in \/opt\/piper\/venv\/bin: pytest .*coverage \(python -m coverage\)/,
    );
    expect(build.stdout).toMatch(/python3-coverage \S+ \(debian\)/);
    expect(build.stdout).toMatch(/python3-attr \S+ \(debian\)/);
    const result = await runTest();
    expect(result.target).toBe('SHELL_FORM=yes coverage run -m pytest tests');
    expect(result.counts, result.output).toEqual({ passed: 6, failed: 0, errors: 0, skipped: 0 });
  });

  it.each([
    ['SHELL_FORM=yes pytest tests', 6],
    ['cd tests && SHELL_FORM=yes pytest -q', 6],
    ['env SHELL_FORM=yes py.test -q tests', 6],
  ])('%s runs the venv pytest with the project importable', async (target, passed) => {
    const result = await runTest(target);
    expect(result.counts, result.output).toEqual({ passed, failed: 0, errors: 0, skipped: 0 });
  });
});

describe('the bare sandbox image', () => {
  it('runs `VAR=x pytest` as `python -m pytest`: a root module importable, as in an environment', async () => {
    // Nothing to install: no environment is built. Debian's /usr/bin/pytest would put only tests/
    // on sys.path (rootdir insertion) and fail to import mod.
    const bare = scratch.newRepo('bare', {
      'mod.py': 'ANSWER = 7\n',
      'tests/test_b.py':
        'import os\n\nimport mod\n\n\ndef test_root_module():\n    assert mod.ANSWER == 7\n    assert os.environ["X"] == "1"\n',
    });
    const r = await runCli(['run-test', '--repo', bare, '--json', 'X=1 pytest tests'], { env: NO_PIP });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(envRows(bare).map((row) => row.status)).toEqual(['base']);
    const result = JSON.parse(r.stdout) as RunTestJson;
    expect(result.counts, result.output).toEqual({ passed: 1, failed: 0, errors: 0, skipped: 0 });
  });
});
