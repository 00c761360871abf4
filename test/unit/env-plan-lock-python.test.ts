// Lockfiles pin what the plan already requires (never add), and the Python follows requires-python
// between the sandbox's two, the recipe's `debian` first; each says so in one sentence.
import { describe, expect, it } from 'vitest';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { choosePython } from '../../runtime/env/plan/python-choice.js';
import { planRepo } from '../helpers/env-plan-repo.js';

const PYPROJECT = [
  '[build-system]',
  'requires = ["hatchling>=1"]',
  'build-backend = "hatchling.build"',
  '[project]',
  'name = "locked"',
  'version = "1"',
  'dependencies = ["attrs>=22", "click<8"]',
  '[dependency-groups]',
  'test = ["pytest", "numpy"]',
  '',
].join('\n');

const UV_LOCK = [
  'version = 1',
  '[[package]]\nname = "locked"\nversion = "1"\nsource = { editable = "." }',
  '[[package]]\nname = "attrs"\nversion = "23.2.0"',
  '[[package]]\nname = "click"\nversion = "8.1.7"',
  '[[package]]\nname = "pytest"\nversion = "8.3.5"',
  '[[package]]\nname = "numpy"\nversion = "1.26.4"\nresolution-markers = ["python_full_version < \'3.12\'"]',
  '[[package]]\nname = "numpy"\nversion = "2.2.0"',
  '[[package]]\nname = "hatchling"\nversion = "1.27.0"',
  '[[package]]\nname = "iniconfig"\nversion = "2.0.0"',
  '',
].join('\n');

describe('lockfiles', () => {
  it('pin each required distribution to its one locked version, and add nothing', () => {
    const plan = planEnvironment(
      planRepo({ 'pyproject.toml': PYPROJECT, 'uv.lock': UV_LOCK, 'poetry.lock': '' }),
    );
    const lines = Object.fromEntries(plan.requirements.map((r) => [r.normalized, r.line]));
    expect(lines).toEqual({
      attrs: 'attrs==23.2.0,>=22',
      click: 'click<8', // locked at 8.1.7, which its specifier excludes
      pytest: 'pytest==8.3.5',
      numpy: 'numpy', // locked at two versions (a fork by marker)
      hatchling: 'hatchling>=1', // a build requirement: the lockfile does not lock the build
      editables: 'editables', // hatchling's editable build needs it, and declares it nowhere
    });
    expect(plan.requirements.find((r) => r.normalized === 'pytest')?.from).toBe(
      'pyproject.toml [dependency-groups].test; uv.lock (locked)',
    );
    expect(plan.decisions).toContain(
      'uv.lock: 2 of 4 requirement(s) pinned to their locked version (not pinned: 1 locked at more than one version, 1 locked outside the specifier asked for); build requirements not pinned, nothing added from it',
    );
    expect(plan.decisions).toContain(
      'poetry.lock: not read (uv.lock comes first); its bytes enter the cache key',
    );
    expect(plan.inputs.filter((i) => i.role === 'lockfile').map((i) => i.path)).toEqual([
      'poetry.lock',
      'uv.lock',
    ]);
  });

  it("read pylock.toml's [[packages]], and say so when a lockfile is not TOML", () => {
    const pylock = 'lock-version = "1.0"\n[[packages]]\nname = "pytest"\nversion = "8.0.0"\n';
    const plan = planEnvironment(planRepo({ 'pyproject.toml': PYPROJECT, 'pylock.toml': pylock }));
    expect(plan.requirements.find((r) => r.normalized === 'pytest')?.line).toBe('pytest==8.0.0');
    const broken = planEnvironment(planRepo({ 'pyproject.toml': PYPROJECT, 'pdm.lock': '[[package]\n' }));
    expect(broken.decisions.some((d) => d.startsWith('pdm.lock: not valid TOML ('))).toBe(true);
  });
});

describe('choosing the Python', () => {
  const requires = (specifier: string) => ({ specifier, from: 'pyproject.toml [project].requires-python' });

  it('keeps 3.13 when it satisfies requires-python, takes 3.11 when only it does, else keeps the default', () => {
    expect(choosePython({}, undefined, requires('>=3.9'), []).decision).toBe(
      'Python 3.13 on Debian trixie: the default; requires-python ">=3.9" (pyproject.toml [project].requires-python) allows it',
    );
    const old = choosePython({}, undefined, requires('<3.12'), []);
    expect([old.python, old.debian]).toEqual(['3.11', 'bookworm']);
    expect(old.decision).toBe(
      'Python 3.11 on Debian bookworm: requires-python "<3.12" (pyproject.toml [project].requires-python) excludes 3.13',
    );
    const older = choosePython({}, undefined, requires('>=3.6,<3.10'), []);
    expect([older.python, older.debian]).toEqual(['3.9', 'bullseye']);
    expect(older.decision).toBe(
      'Python 3.9 on Debian bullseye: requires-python ">=3.6,<3.10" (pyproject.toml [project].requires-python) excludes 3.13 and 3.11',
    );
    expect(choosePython({}, undefined, requires('<3.11'), []).python).toBe('3.9');
    expect(choosePython({}, undefined, requires('==3.10.*'), []).decision).toBe(
      'Python 3.13 on Debian trixie: the default; requires-python "==3.10.*" (pyproject.toml [project].requires-python) needs Python 3.10, which no reachable source carries (the sandbox has 3.13, 3.11, 3.9), so the default is kept',
    );
    expect(choosePython({}, undefined, requires('>=2.7,<3.9'), []).decision).toContain(
      'needs Python 3.6 or 3.7 or 3.8, which no reachable source carries',
    );
    expect(choosePython({}, undefined, requires('<3'), []).decision).toBe(
      'Python 3.13 on Debian trixie: the default; requires-python "<3" (pyproject.toml [project].requires-python) excludes 3.13, 3.11, 3.9, so the default is kept',
    );
    expect(choosePython({}, undefined, requires('>=three'), []).python).toBe('3.13');
  });

  it("lets the recipe's debian and a requested Python win, and uses classifiers only as a hint", () => {
    expect(choosePython({ debian: 'trixie' }, undefined, requires('<3.12'), []).decision).toBe(
      'Python 3.13 on Debian trixie: .piper/sandbox.toml debian, though requires-python "<3.12" (pyproject.toml [project].requires-python) excludes it',
    );
    expect(choosePython({}, '3.13', requires('<3.12'), []).python).toBe('3.13');
    expect(choosePython({ python: '3.9' }, '3.13', null, []).decision).toBe(
      'Python 3.9 on Debian bullseye: .piper/sandbox.toml python (over the requested Python 3.13)',
    );
    expect(choosePython({ debian: 'bullseye' }, undefined, null, []).python).toBe('3.9');
    const hinted = choosePython({}, undefined, null, [
      'Programming Language :: Python :: 3.10',
      'Programming Language :: Python :: 3.11',
    ]);
    expect(hinted.python).toBe('3.13');
    expect(hinted.decision).toBe(
      'Python 3.13 on Debian trixie: the default (no requires-python; its classifiers list Python 3.10, 3.11, not 3.13 (a hint only))',
    );
  });

  it('reads requires-python from setup.cfg and Poetry too', () => {
    const cfg = planEnvironment(
      planRepo({ 'setup.cfg': '[metadata]\nname = x\n[options]\npython_requires = >=3.8, <3.12\n' }),
    );
    expect(cfg.python).toBe('3.11');
    const poetry = planEnvironment(
      planRepo({
        'pyproject.toml': '[tool.poetry]\nname = "p"\n[tool.poetry.dependencies]\npython = "~3.11"\n',
      }),
    );
    expect([poetry.python, poetry.decisions[0]]).toEqual([
      '3.11',
      'Python 3.11 on Debian bookworm: requires-python ">=3.11,<3.12" (pyproject.toml [tool.poetry.dependencies].python) excludes 3.13',
    ]);
  });

  it("reads setup.py's literal python_requires as text, after every declarative source", () => {
    const setupPy = "from setuptools import setup\nsetup(name='old', python_requires='<3.10')\n";
    const old = planEnvironment(planRepo({ 'setup.py': setupPy }));
    expect([old.python, old.debian, old.decisions[0]]).toEqual([
      '3.9',
      'bullseye',
      'Python 3.9 on Debian bullseye: requires-python "<3.10" (setup.py python_requires (as text)) excludes 3.13 and 3.11',
    ]);
    const cfgFirst = planEnvironment(
      planRepo({ 'setup.py': setupPy, 'setup.cfg': '[options]\npython_requires = >=3.8\n' }),
    );
    expect(cfgFirst.python).toBe('3.13');
    const computed = 'setup(python_requires=REQUIRES)\n';
    expect(planEnvironment(planRepo({ 'setup.py': computed })).python).toBe('3.13');
  });
});
