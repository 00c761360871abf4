// The plan's parts on small repositories written per test: the recipe's validation errors, the
// Debian name map, redaction, requirements-file reading (continuations, includes, cycles, paths out
// of the repository), INI values, dependency-group cycles and the src-layout rule.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { debianPackageFor, parseNameMap } from '../../runtime/env/plan/debian-names.js';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { isEnvPlanError, type EnvPlanError } from '../../runtime/env/plan/errors.js';
import { parseIni } from '../../runtime/env/plan/read/ini.js';
import { pipRequirementLine } from '../../runtime/env/plan/deps/pip-line.js';
import { validateRecipe } from '../../runtime/env/plan/recipe.js';
import { redactUrl } from '../../runtime/env/plan/read/redact.js';
import { renderPlanJson, renderPlanText } from '../../runtime/env/plan/render.js';
import { RepoReader } from '../../runtime/env/plan/read/repo-reader.js';
import { readRequirementsFiles } from '../../runtime/env/plan/deps/requirements-file.js';

const made: string[] = [];

function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'piper-env-plan-'));
  made.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

afterEach(() => {
  for (const root of made.splice(0)) rmSync(root, { recursive: true, force: true });
});

function planError(run: () => unknown): EnvPlanError {
  try {
    run();
  } catch (error) {
    if (isEnvPlanError(error)) return error;
    throw error;
  }
  throw new Error('expected an EnvPlanError');
}

describe('recipe validation', () => {
  it('rejects an unknown key, naming it and the known ones', () => {
    const error = planError(() => validateRecipe({ extras: [], aptt: ['x'] }));
    expect(error.kind).toBe('bad_recipe');
    expect(error.where).toMatchObject({ file: '.piper/sandbox.toml', key: 'aptt' });
    expect(error.message).toMatch(
      /^\.piper\/sandbox\.toml: key "aptt": unknown key \(expected one of debian, extras/,
    );
  });

  it('says what a key expects and what it got', () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{ debian: 'sid' }, 'debian', /got "sid" \(expected "trixie", "bookworm" or "bullseye"\)/],
      [
        { python: '3.8' },
        'python',
        /got "3\.8" \(expected "3\.13", "3\.11" or "3\.9" \(Python 3\.6 to 3\.8 and 3\.10: no Debian release/,
      ],
      [{ python: '3.9', debian: 'trixie' }, 'python', /Python 3\.9 is not Debian trixie's/],
      [
        { apt: ['libyaml-dev', 'Bad_Name'] },
        'apt[1]',
        /got "Bad_Name" \(expected a list of Debian package names/,
      ],
      [
        { extras: 'test' },
        'extras',
        /got "test" \(expected a list of the project's optional-dependency names/,
      ],
      [{ detect: 'no' }, 'detect', /expected true or false/],
      [{ index_url: 'ftp://x' }, 'index_url', /expected an http\(s\):\/\/ or file:\/\/ URL/],
      [{ requirements: ['ok>=1', 'bad >='] }, 'requirements[1]', /invalid requirement "bad >="/],
    ];
    for (const [data, key, message] of cases) {
      const error = planError(() => validateRecipe(data));
      expect(error.where.key, key).toBe(key);
      expect(error.message, key).toMatch(message);
    }
  });

  it('never repeats a credential it was given', () => {
    const error = planError(() =>
      validateRecipe({ extra_index_urls: ['https://u:topsecret@x.invalid/simple', 3] }),
    );
    expect(error.message).not.toContain('topsecret');
  });

  it('checks find_links, extras and groups against the repository', () => {
    const root = repo({
      'pyproject.toml': '[project]\nname = "p"\n[project.optional-dependencies]\ntest = ["pytest"]\n',
      '.piper/sandbox.toml': 'find_links = ["../elsewhere"]\n',
    });
    expect(planError(() => planEnvironment(root)).message).toMatch(
      /key "find_links\[0\]": "\.\.\/elsewhere" is outside/,
    );
    writeFileSync(join(root, '.piper/sandbox.toml'), 'extras = ["tests"]\n');
    expect(planError(() => planEnvironment(root)).message).toMatch(
      /key "extras\[0\]": the project declares no extra "tests" \(declared: test\)/,
    );
    writeFileSync(join(root, '.piper/sandbox.toml'), 'groups = ["dev"]\n');
    expect(planError(() => planEnvironment(root)).where.key).toBe('groups[0]');
    writeFileSync(join(root, '.piper/sandbox.toml'), 'extras = [\n');
    const toml = planError(() => planEnvironment(root));
    expect(toml.kind).toBe('bad_recipe');
    expect(toml.message).toMatch(/^\.piper\/sandbox\.toml:\d+:\d+: not valid TOML/);
  });

  it('with detect = false installs only the recipe’s requirements', () => {
    const root = repo({
      'pyproject.toml': '[project]\nname = "p"\ndependencies = ["click"]\n',
      '.piper/sandbox.toml': 'detect = false\nrequirements = ["attrs"]\n',
    });
    const plan = planEnvironment(root);
    expect(plan.requirements.map((r) => [r.name, r.reason, r.from])).toEqual([
      ['attrs', 'recipe', '.piper/sandbox.toml requirements[0]'],
    ]);
  });
});

describe('Debian name map', () => {
  it('maps PyPI names the way dh-python does', () => {
    expect(debianPackageFor('attrs')).toBe('python3-attr');
    expect(debianPackageFor('PyYAML')).toBe('python3-yaml');
    // Debian 12's python3-html5lib is html5lib itself; the vendored (Debian 13) map names only the fork.
    expect(debianPackageFor('html5lib')).toBe('python3-html5lib');
    expect(debianPackageFor('html5lib-modern')).toBe('python3-html5lib');
    expect(debianPackageFor('pyyaml')).toBe('python3-yaml');
    expect(debianPackageFor('packaging')).toBe('python3-packaging');
    expect(debianPackageFor('python_dateutil')).toBe('python3-dateutil');
    expect(debianPackageFor('Pillow')).toBe('python3-pil');
    expect(debianPackageFor('no-such-distribution-anywhere')).toBeNull();
  });

  it('reads the file format: comments, version translations, first line wins', () => {
    const map = parseNameMap(
      '# c\nFoo_Bar python3-foobar; PEP386\nfoo-bar python3-other\nargparse python3 (>= 3.2)\n',
    );
    expect(map.get('foo-bar')).toBe('python3-foobar');
    expect(map.get('argparse')).toBe('python3');
  });
});

describe('redaction', () => {
  it('removes the userinfo of every URL and keeps the rest', () => {
    expect(redactUrl('https://user:pass@host.invalid/simple')).toBe('https://***@host.invalid/simple');
    expect(redactUrl('-i https://token@host.invalid/simple --extra-index-url http://a:b@c.invalid')).toBe(
      '-i https://***@host.invalid/simple --extra-index-url http://***@c.invalid',
    );
    expect(redactUrl('https://host.invalid/simple')).toBe('https://host.invalid/simple');
    expect(redactUrl('git+ssh://git@host.invalid/repo.git')).toBe('git+ssh://***@host.invalid/repo.git');
  });

  it('keeps index credentials out of decisions, from, the text and the JSON; only pip.indexUrl holds them', () => {
    const root = repo({
      'requirements.txt': '--index-url https://ci:tok3n@idx.invalid/simple\nclick\n',
      'requirements-test.txt':
        '-r requirements.txt\n--extra-index-url https://ci:tok3n@idx2.invalid/simple\npkg @ https://ci:tok3n@x.invalid/pkg-1.0-py3-none-any.whl\n',
    });
    const plan = planEnvironment(root);
    expect(plan.pip.indexUrl).toBe('https://ci:tok3n@idx.invalid/simple');
    expect(plan.requirements.find((r) => r.name === 'pkg')?.url).toContain('tok3n');
    const { pip, requirements, ...rest } = plan;
    expect(JSON.stringify(rest)).not.toContain('tok3n');
    expect(JSON.stringify(requirements.map(({ url: _url, ...r }) => r))).not.toContain('tok3n');
    expect(pip.fromFiles.join()).not.toContain('tok3n');
    expect(renderPlanText(plan)).not.toContain('tok3n');
    expect(renderPlanJson(plan)).not.toContain('tok3n');
    expect(renderPlanJson(plan)).toContain('https://***@idx.invalid/simple');
    const pkg = plan.requirements.find((r) => r.name === 'pkg');
    expect(pkg?.line).toBe('pkg @ https://***@x.invalid/pkg-1.0-py3-none-any.whl');
    expect(pipRequirementLine(pkg!)).toBe('pkg @ https://ci:tok3n@x.invalid/pkg-1.0-py3-none-any.whl');
    expect(pipRequirementLine(plan.requirements.find((r) => r.name === 'click')!)).toBe('click');
  });
});

describe('requirements files', () => {
  it('joins continuations, drops comments and hashes, follows -r/-c relative to the file, guards cycles', () => {
    const root = repo({
      'reqs/test.txt':
        '# header\n-r ../requirements.txt\n-c constraints.txt\npytest \\\n  >=7 \\\n  --hash=sha256:00 # pinned\n-r test.txt\nattrs  #comment\n',
      'reqs/constraints.txt': 'pytest<9\n',
      'requirements.txt': 'click>=8\n--requirement=missing.txt\n',
    });
    const files = readRequirementsFiles(new RepoReader(root), 'reqs/test.txt');
    expect(files.requirements.map((r) => [r.requirement.name, r.from])).toEqual([
      ['click', 'requirements.txt:1'],
      ['pytest', 'reqs/test.txt:4'],
      ['attrs', 'reqs/test.txt:8'],
    ]);
    expect(files.requirements[1]?.requirement.specifiers).toEqual([{ op: '>=', version: '7' }]);
    expect(files.constraints.map((r) => r.from)).toEqual(['reqs/constraints.txt:1']);
    expect(files.problems).toEqual([
      {
        line: '--requirement=missing.txt',
        from: 'requirements.txt:2',
        reason: 'missing.txt: file not found',
      },
      {
        line: '-r test.txt',
        from: 'reqs/test.txt:7',
        reason: 'include cycle: reqs/test.txt is already being read',
      },
    ]);
    expect(files.files).toEqual(['reqs/test.txt', 'requirements.txt', 'reqs/constraints.txt']);
  });

  it('reads -e . as the project itself and never reads outside the repository', () => {
    const outside = repo({ 'secret.txt': 'leaked-name\n' });
    const root = repo({
      'requirements-dev.txt':
        '-e .[test,lint]\n--editable=./\n-r ../secret.txt\n-r link.txt\n-e ./vendored/lib\n',
    });
    symlinkSync(join(outside, 'secret.txt'), join(root, 'link.txt'));
    const reader = new RepoReader(root);
    const files = readRequirementsFiles(reader, 'requirements-dev.txt');
    expect(files.selfReferences).toEqual([
      { extras: ['test', 'lint'], from: 'requirements-dev.txt:1' },
      { extras: [], from: 'requirements-dev.txt:2' },
    ]);
    expect(files.requirements).toEqual([]);
    expect(files.problems.map((p) => p.reason)).toEqual([
      'outside the repository: not read',
      'outside the repository: not read',
      'a local path other than the project itself: not installed by the plan',
    ]);
    expect(reader.recorded().map((i) => i.path)).toEqual(['requirements-dev.txt']);
  });

  it('a setup.py-only project: `-e .` is the project, its extras cannot be read', () => {
    const plan = planEnvironment(
      repo({
        'setup.py': 'from setuptools import setup\nsetup()\n',
        'requirements-dev.txt': '-e .[test]\npytest\n',
      }),
    );
    expect(plan.project).toMatchObject({
      name: null,
      installable: true,
      buildBackend: 'setuptools.build_meta:__legacy__',
    });
    expect(plan.skipped).toEqual([]);
    expect(plan.decisions).toContain(
      'requirements-dev.txt:1: `-e .[test]` names the project itself: its extras "test" are declared where the plan cannot read them (setup.py is not run): not resolved',
    );
    expect(plan.requirements.map((r) => `${r.reason} ${r.line}`)).toEqual([
      'test pytest',
      'build setuptools>=40.8.0',
    ]);
  });

  it('names an unknown pip option with its file and line', () => {
    const root = repo({ 'requirements.txt': 'click\n--frobnicate yes\n' });
    const error = planError(() => planEnvironment(root));
    expect(error.kind).toBe('bad_requirement');
    expect(error.message).toBe('requirements.txt:2: unknown pip option --frobnicate');
    expect(error.where).toMatchObject({ file: 'requirements.txt', line: 2 });
  });
});

describe('INI, groups, layout', () => {
  it('reads INI values the way configparser does', () => {
    const ini = parseIni(
      '[a]\nKey = one\n  two\n\n  three\n# note\nother: x = y\n[b]\n; c\nz=\n',
      'setup.cfg',
    );
    expect(ini.get('a')?.get('key')).toBe('one\ntwo\n\nthree');
    expect(ini.get('a')?.get('other')).toBe('x = y');
    expect(ini.get('b')?.get('z')).toBe('');
    expect(() => parseIni('key = 1\n', 'tox.ini')).toThrow(/tox.ini:1: a value before any \[section\]/);
  });

  it('reports a dependency-group include cycle', () => {
    const root = repo({
      'pyproject.toml':
        '[dependency-groups]\ntest = [{include-group = "a"}]\na = ["x", {include-group = "b"}]\nb = [{include-group = "Test"}]\n',
    });
    const error = planError(() => planEnvironment(root));
    expect(error.kind).toBe('bad_project_file');
    expect(error.message).toBe('pyproject.toml: [dependency-groups] include cycle: test → a → b → test');
  });

  it('a src layout needs a package in src/, and the backend configuration has the last word', () => {
    expect(planEnvironment(repo({ 'src/README.md': 'x' })).project.layout).toBe('flat');
    expect(planEnvironment(repo({ 'src/tool.py': '' })).project.importRoot).toBe('/work/src');
    expect(planEnvironment(repo({ 'src/pkg/core.py': '' })).decisions).toContain(
      'src layout: src/pkg/core.py',
    );
    const explicit = repo({
      'src/pkg/__init__.py': '',
      'pyproject.toml': '[tool.setuptools.packages.find]\nwhere = ["."]\n',
    });
    expect(planEnvironment(explicit).project.layout).toBe('flat');
  });
});
